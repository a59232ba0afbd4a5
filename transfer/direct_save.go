package transfer

import (
	"context"
	"fmt"
	"slices"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// runDirect saves set after set in place: each set's values are reserved
// in the pool's arenas (on another goroutine, while the previous set's
// gathers are described and queued), the device gathers the pages
// straight into them, and the set's reservations are committed (commit)
// once its copies finished. Up to StagingBuffers sets are in flight.
func (c *saveCall) runDirect(ctx context.Context) error {
	return runSets(c.s.lane.fan.crew, directStep{
		start:  func(cr *crew) (*prefetch, error) { return c.startReserve(ctx, cr) },
		finish: c.finishReserve,
		submit: c.gather,
	})
}

// startReserve starts the reservations of the next set's pages on the
// crew; nil when no page is left.
func (c *saveCall) startReserve(ctx context.Context, cr *crew) (*prefetch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := c.s.lane
	batch := l.nextBatch(c.items, &c.next, make([]bool, len(c.jobs)))
	return startDirect(c.p, batch, func(s *slotSet, k int) *crewTask { return c.reserveChunks(ctx, cr, s, k) })
}

// reserveChunks posts the reservations of set s's k pages to the crew in
// batches of Slots pages (one Reserve call each), which translate the
// places to device addresses, describe the gathers into them and flag the
// batches with a page not reserved; s keeps the reservations.
func (c *saveCall) reserveChunks(ctx context.Context, cr *crew, s *slotSet, k int) *crewTask {
	l, d := c.s.lane, s.direct
	d.place(s.items)
	first := len(s.reserved)
	s.reserved = append(s.reserved, make([]pool.Reservation, (k+l.geo.Slots-1)/l.geo.Slots)...)
	return chunkCalls(cr, k, l.geo.Slots, func(j, lo, hi int) error {
		for i := lo; i < hi; i++ {
			it := s.items[i]
			d.items[i] = pool.PutItem{Key: it.key, Size: it.bytes, Options: c.jobs[it.job].Options}
		}
		r, err := l.arenas.writer.Reserve(ctx, d.items[lo:hi], d.views[lo:hi], d.codes[lo:hi])
		clear(d.items[lo:hi])
		s.reserved[first+j] = r
		if err == nil {
			err = l.arenas.ptrs(d.views[lo:hi], d.ptrs[lo:hi])
		}
		clear(d.views[lo:hi])
		d.short[j] = slices.ContainsFunc(d.codes[lo:hi], func(code pool.Code) bool { return code != pool.OK })
		d.describe(s.items, lo, hi, cuda.DeviceToHost, func(i int) bool { return d.codes[i] == pool.OK })
		return err
	})
}

// finishReserve waits for a set's reservations (the put phase: PutStart
// without the bytes), counts the pages refused, and keeps in the set the
// pages reserved and their gathers.
func (c *saveCall) finishReserve(f *prefetch) error {
	f.wait()
	c.calls += int64(f.calls)
	s, d := f.set, f.set.direct
	k := len(s.items)
	c.p.clk.lap(stats.PhasePut)
	if f.err != nil {
		s.finish()
		return fmt.Errorf("pool reserve of %d pages: %w", k, f.err)
	}
	reserved := func(i int) bool { return d.codes[i] == pool.OK }
	d.gathers = d.copies[:d.ends[k-1]]
	if slices.Contains(d.short[:(k+c.s.lane.geo.Slots-1)/c.s.lane.geo.Slots], true) {
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
func (c *saveCall) gather(s *slotSet) error {
	if len(s.items) == 0 {
		s.finish()
		return nil
	}
	c.p.clk.lap(stats.PhaseDescribe)
	return c.p.submit(s, cuda.DeviceToHost, s.direct.gathers, stats.PhaseStage)
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
		r.Bytes += it.bytes
	}
}
