package transfer

import (
	"context"
	"slices"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// runDirect views set after set in the pool's arenas and queues their
// copies: once set k's views returned, the views of set k+1 start (on the
// lane's crew, which also describes the copies) before set k's copies are
// queued. A set holds its views until its copies finished.
func (c *loadCall) runDirect(ctx context.Context) error {
	return runSets(c.l.fan.crew, directStep{
		start:  func(cr *crew) (*prefetch, error) { return c.startView(ctx, cr) },
		finish: c.finishView,
		submit: c.unstageDirect,
	})
}

// startView starts the views of the next set's pages on the crew,
// skipping requests already failed; nil when no page is left.
func (c *loadCall) startView(ctx context.Context, cr *crew) (*prefetch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	batch := c.l.nextBatch(c.items, &c.next, c.failed)
	return startDirect(c.p, batch, func(s *slotSet, k int) *crewTask { return c.viewChunks(cr, s, k) })
}

// viewChunks posts the lookups of set s's k pages to the crew in batches
// of Slots pages (one ViewBatch call each), which translate the views to
// device addresses, describe the copies of the pages found whole and
// flag the batches with a page that was not; s keeps the releases.
func (c *loadCall) viewChunks(cr *crew, s *slotSet, k int) *crewTask {
	arenas, d := c.l.arenas, s.direct
	d.place(s.items)
	chunk := c.l.geo.Slots
	first := len(s.releases)
	s.releases = append(s.releases, make([]func(), (k+chunk-1)/chunk)...)
	return chunkCalls(cr, k, chunk, func(j, lo, hi int) error {
		for i := lo; i < hi; i++ {
			d.keys[i] = s.items[i].key
		}
		s.releases[first+j] = arenas.views.ViewBatch(d.keys[lo:hi], d.views[lo:hi], d.codes[lo:hi])
		err := arenas.ptrs(d.views[lo:hi], d.ptrs[lo:hi])
		d.short[j] = false
		for i := lo; i < hi; i++ {
			if !viewedWhole(d, i, s.items[i]) {
				d.ptrs[i], d.short[j] = 0, true
			}
		}
		clear(d.views[lo:hi])
		d.describe(s.items, lo, hi, cuda.HostToDevice, func(i int) bool { return true })
		return err
	})
}

// finishView waits for a set's views and fails the requests of pages not
// found whole (device address 0), looking only at the batches flagged.
func (c *loadCall) finishView(f *prefetch) error {
	f.wait()
	c.calls += int64(f.calls)
	s, d := f.set, f.set.direct
	chunk := c.l.geo.Slots
	for j := 0; f.err == nil && j*chunk < len(s.items); j++ {
		if !d.short[j] {
			continue
		}
		for i := j * chunk; i < min((j+1)*chunk, len(s.items)); i++ {
			if d.ptrs[i] == 0 {
				markMissing(c.results, c.failed, s.items[i])
				c.anyFailed = true
			}
		}
	}
	c.p.clk.lap(stats.PhaseGet)
	return f.err
}

// viewedWhole says whether item it (number i of its set) was found with
// its page's size and a device address.
func viewedWhole(d *directScratch, i int, it pageItem) bool {
	return d.codes[i] == pool.OK && d.ptrs[i] != 0 && int64(len(d.views[i])) == it.bytes
}

// unstageDirect queues the copies of set s's pages of requests still
// whole, described by its views' goroutines.
func (c *loadCall) unstageDirect(s *slotSet) error {
	k := len(s.items)
	failed := func(it pageItem) bool { return c.failed[it.job] }
	copies := s.direct.copies[:s.direct.ends[k-1]]
	if c.anyFailed && slices.ContainsFunc(s.items, failed) {
		copies = s.direct.kept(k, func(i int) bool { return !failed(s.items[i]) })
		s.items = slices.DeleteFunc(s.items, failed)
	}
	c.p.clk.lap(stats.PhaseDescribe)
	return c.p.submit(s, cuda.HostToDevice, copies, stats.PhaseUnstage)
}
