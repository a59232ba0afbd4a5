package transfer

import (
	"context"
	"fmt"
	"slices"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/stats"
)

// loadCall is the state of one load on a lane.
type loadCall struct {
	l       *lane
	p       *pipeline
	items   []pageItem
	results []LoadResult
	failed  []bool
	// anyFailed says a direct load failed a request (failed has a true).
	anyFailed bool
	next      int
	calls     int64
}

// getting is a batch whose Gets are in flight into set.
type getting struct {
	set  *slotSet
	task *fanTask
}

// run fetches batch after batch into staging: once batch k's Gets
// returned, the Gets of batch k+1 start (into another buffer) before
// batch k's copies are queued, so that they overlap those copies. With a
// single buffer batch k+1 is fetched only after batch k's copies.
func (c *loadCall) run(ctx context.Context) error {
	cur, err := c.startGet(ctx, true)
	for cur != nil {
		err = c.finishGet(cur)
		var next *getting
		overlap := c.p.peek() != cur.set
		if err == nil && overlap {
			next, err = c.startGet(ctx, false)
		}
		if err == nil {
			err = c.unstage(cur.set, c.l.slotPtr(cur.set))
		}
		if err == nil && !overlap {
			next, err = c.startGet(ctx, true)
		}
		if err != nil {
			c.abandon(next)
			return err
		}
		cur = next
	}
	return err
}

// startGet picks the next batch, skipping requests already failed, and
// starts its Gets into a free buffer (inline: the first call on this
// goroutine, when there is nothing to overlap); nil when no page is left.
func (c *loadCall) startGet(ctx context.Context, inline bool) (*getting, error) {
	l := c.l
	batch := l.nextBatch(c.items, &c.next, c.failed)
	if len(batch) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := c.p.acquire()
	if err != nil {
		return nil, err
	}
	s.items = append(s.items[:0], batch...)
	for i, it := range batch {
		s.keys[i], s.bufs[i] = it.key, l.stage.slot(s.buffer, i, it.bytes)
	}
	k := len(batch)
	task := l.fan.get(ctx, l.o.Pool, s.keys[:k], s.bufs[:k], s.n[:k], batchBytes(batch), inline)
	return &getting{set: s, task: task}, nil
}

// finishGet waits for a batch's Gets and marks the pages not returned
// whole as missing.
func (c *loadCall) finishGet(g *getting) error {
	calls, cpu, err := g.task.wait()
	c.calls += int64(calls)
	c.p.clk.lap(stats.PhaseGet)
	c.p.clk.addCPU(stats.PhaseGet, cpu)
	if err != nil {
		return fmt.Errorf("pool get of %d pages: %w", len(g.set.items), err)
	}
	for i, it := range g.set.items {
		if g.set.n[i] != it.bytes {
			markMissing(c.results, c.failed, it)
		}
	}
	return nil
}

// abandon waits for Gets started but no longer wanted.
func (c *loadCall) abandon(g *getting) {
	if g != nil {
		g.task.wait()
		c.p.clk.lap(stats.PhaseGet)
	}
}

// unstage queues the copies of set s's pages of requests still whole,
// from base(i), to their GPU pages; they count as landed once the copies
// finished.
func (c *loadCall) unstage(s *slotSet, base func(i int) cuda.DevPtr) error {
	l := c.l
	batch := s.items
	l.describe(batch, cuda.HostToDevice, base)
	c.p.clk.lap(stats.PhaseDescribe)
	copies := l.keep(func(i int) bool { return !c.failed[batch[i].job] })
	s.items = slices.DeleteFunc(batch, func(it pageItem) bool { return c.failed[it.job] })
	return c.p.submit(s, cuda.HostToDevice, copies, stats.PhaseUnstage)
}

// countLanded adds pages whose copies finished to their results.
func countLanded(results []LoadResult, items []pageItem) {
	for _, it := range items {
		results[it.job].Landed++
		results[it.job].Bytes += it.bytes
	}
}

func markMissing(results []LoadResult, failed []bool, it pageItem) {
	results[it.job].Missing = append(results[it.job].Missing, it.key)
	failed[it.job] = true
}
