package transfer

import (
	"context"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// runDirect views set after set in the pool's arenas and queues their
// copies: once set k's views returned, the views of set k+1 start (on
// other goroutines) before set k's copies are described and queued. A set
// holds its views until its copies finished.
func (c *loadCall) runDirect(ctx context.Context) error {
	cur, err := c.startView(ctx)
	for cur != nil && err == nil {
		err = c.finishView(cur)
		var next *prefetch
		if err == nil {
			next, err = c.startView(ctx)
		}
		if err == nil {
			d := cur.set.direct
			err = c.unstage(cur.set, func(i int) cuda.DevPtr { return d.ptrs[i] })
		}
		if err != nil {
			next.wait()
			return err
		}
		cur = next
	}
	return err
}

// startView starts the views of the next set's pages, skipping requests
// already failed; nil when no page is left.
func (c *loadCall) startView(ctx context.Context) (*prefetch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	batch := c.l.nextBatch(c.items, &c.next, c.failed)
	return startDirect(c.p, batch, c.viewChunks)
}

// viewChunks looks set s's k pages up in batches of Slots pages (one
// ViewBatch call each, up to Parallel at once) and translates the views to
// device addresses; s keeps the releases.
func (c *loadCall) viewChunks(s *slotSet, k int) (int, error) {
	arenas, d := c.l.arenas, s.direct
	for i, it := range s.items {
		d.keys[i] = it.key
	}
	chunk := c.l.geo.Slots
	releases := make([]func(), (k+chunk-1)/chunk)
	calls, err := chunkCalls(k, chunk, c.l.fan.most, func(j, lo, hi int) error {
		releases[j] = arenas.views.ViewBatch(d.keys[lo:hi], d.views[lo:hi], d.codes[lo:hi])
		return arenas.ptrs(d.views[lo:hi], d.ptrs[lo:hi])
	})
	s.releases = append(s.releases, releases...)
	return calls, err
}

// finishView waits for a set's views and fails the requests of pages not
// found whole.
func (c *loadCall) finishView(f *prefetch) error {
	f.wait()
	c.calls += int64(f.calls)
	d := f.set.direct
	for i, it := range f.set.items {
		if f.err == nil && (d.codes[i] != pool.OK || d.ptrs[i] == 0 || int64(len(d.views[i])) != it.bytes) {
			d.ptrs[i] = 0
			markMissing(c.results, c.failed, it)
		}
	}
	clear(d.views[:len(f.set.items)])
	c.p.clk.lap(PhaseGet)
	return f.err
}
