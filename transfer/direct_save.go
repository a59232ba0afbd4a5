package transfer

import (
	"context"
	"fmt"
	"slices"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/crew"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// startReserve takes the next set's pages and posts their reservations
// in the pool's arenas to the crew; nil when no page is left. The device
// gathers the pages straight into them, and the set's reservations are
// committed (commit) once its copies finished.
func (c *saveCall) startReserve(ctx context.Context) (*setWork, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := c.s.lane
	batch := l.nextBatch(c.items, &c.next, nil, l.geo.SetPages)
	if len(batch) == 0 {
		return nil, nil
	}
	s, err := c.p.acquire()
	if err != nil {
		return nil, err
	}
	if err := s.takeItems(batch, cuda.DeviceToHost, callsOf(len(batch), l.geo.Slots)); err != nil {
		return nil, err
	}
	return &setWork{set: s, task: c.reserveChunks(ctx, s, len(batch)), chunk: l.geo.Slots}, nil
}

// reserveChunks posts the reservations of set s's k pages to the crew in
// batches of Slots pages (one Reserve call each), which translate the
// places to device addresses, describe the gathers into them (and, in
// kernel mode, write their descriptors into s.descs) and flag the
// batches with a page not reserved; s keeps the reservations.
func (c *saveCall) reserveChunks(ctx context.Context, s *slotSet, k int) *crew.Task {
	l, d := c.s.lane, s.scratch
	first := len(s.reserved)
	s.reserved = append(s.reserved, make([]pool.Reservation, (k+l.geo.Slots-1)/l.geo.Slots)...)
	return chunkCalls(l.crew, k, l.geo.Slots, func(j, lo, hi int) error {
		for i := lo; i < hi; i++ {
			d.items[i] = c.reserveItem(s.items[i])
		}
		r, err := l.arenas.writer.Reserve(ctx, d.items[lo:hi], d.vals[lo:hi], d.codes[lo:hi])
		clear(d.items[lo:hi])
		s.reserved[first+j] = r
		if err == nil {
			err = l.arenas.ptrs(d.vals[lo:hi], d.ptrs[lo:hi])
		}
		clear(d.vals[lo:hi])
		d.short[j] = slices.ContainsFunc(d.codes[lo:hi], func(code pool.Code) bool { return code != pool.OK })
		d.describe(s.items, lo, hi, cuda.DeviceToHost, func(i int) bool { return d.codes[i] == pool.OK })
		if s.descs != nil {
			d.describeSet(s.descs, s.items, j, lo, hi)
		}
		return err
	})
}

// reserveItem is what Reserve is asked for page it: its key, size and
// its request's put options.
func (c *saveCall) reserveItem(it pageItem) pool.PutItem {
	return pool.PutItem{Key: it.key, Size: it.bytes(), Options: c.jobs[it.job].Options}
}

// finishReserve waits for a set's reservations (the put phase: PutStart
// without the bytes), counts the pages refused, and keeps in the set the
// pages reserved and their gathers.
func (c *saveCall) finishReserve(w *setWork) error {
	w.wait()
	c.calls += int64(w.calls)
	s, d := w.set, w.set.scratch
	k := len(s.items)
	c.p.clk.lap(stats.PhasePut)
	c.p.clk.addCPU(stats.PhasePut, w.cpu)
	if w.err != nil {
		s.finish()
		return fmt.Errorf("pool reserve of %d pages: %w", k, w.err)
	}
	reserved := func(i int) bool { return d.codes[i] == pool.OK }
	d.gathers = d.all(k)
	if d.shortCalls((k + w.chunk - 1) / w.chunk) {
		d.gathers = d.kept(k, reserved)
		kept := s.items[:0]
		for i, it := range s.items {
			if !reserved(i) {
				c.count([]pageItem{it}, d.codes[i:i+1])
				continue
			}
			kept = append(kept, it)
		}
		s.items = kept
	}
	return nil
}

// gather queues the copies of set s's pages into their reserved places;
// a set with no page reserved is only freed.
func (c *saveCall) gather(w *setWork) error {
	s := w.set
	if len(s.items) == 0 {
		s.finish()
		return nil
	}
	c.p.clk.lap(stats.PhaseDescribe)
	if s.descs != nil {
		return c.p.launch(s, stats.PhaseStage)
	}
	return c.p.submit(s, cuda.DeviceToHost, s.scratch.gathers, stats.PhaseStage)
}

// commit hands a set's reservations, whose gathers finished, to the
// finisher, which publishes them, and counts the set's pages stored.
func (c *saveCall) commit(set *slotSet) {
	commits := make([]func(), 0, len(set.reserved))
	for _, r := range set.reserved {
		if r != nil { // nil: the Reserve call failed
			commits = append(commits, r.Commit)
		}
	}
	c.p.after.hand(commits)
	clear(set.reserved)
	set.reserved = set.reserved[:0]
	for _, it := range set.items {
		r := &c.results[it.job]
		r.Stored++
		r.Bytes += it.bytes()
	}
}
