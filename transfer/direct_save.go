package transfer

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// runDirect saves batch after batch in place: each batch's values are
// reserved in the pool's arenas, the device gathers the pages straight
// into them, and a set's reservation is committed (commit) once its
// copies finished. Up to StagingBuffers batches are in flight.
func (c *saveCall) runDirect(ctx context.Context) error {
	l := c.s.lane
	none := make([]bool, len(c.jobs))
	for {
		batch := l.nextBatch(c.items, &c.next, none)
		if len(batch) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		set, err := c.p.acquire()
		if err != nil {
			return err
		}
		if err := c.reserve(ctx, set, batch); err != nil {
			return err
		}
		if len(set.items) == 0 {
			set.finish()
			continue
		}
		if err := c.p.submit(set, cuda.DeviceToHost, l.copies, PhaseStage); err != nil {
			return err
		}
	}
}

// reserve places the batch's values in the pool's arenas (the put phase:
// PutStart without the bytes), counts the pages refused, and describes
// the gathers of the others into their places; set keeps the
// reservation and the pages reserved.
func (c *saveCall) reserve(ctx context.Context, set *slotSet, batch []pageItem) error {
	l := c.s.lane
	k := len(batch)
	items, dsts, codes, ptrs := l.puts[:k], l.views[:k], l.codes[:k], l.ptrs[:k]
	for i, it := range batch {
		items[i] = pool.PutItem{Key: it.key, Size: it.bytes, Options: c.jobs[it.job].Options}
	}
	res, err := l.arenas.writer.Reserve(ctx, items, dsts, codes)
	c.calls++
	clear(items)
	if err == nil {
		err = l.arenas.ptrs(dsts, ptrs)
	}
	clear(dsts)
	c.p.clk.lap(PhasePut)
	if err != nil {
		if res != nil {
			res.Abort()
		}
		return fmt.Errorf("pool reserve of %d pages: %w", k, err)
	}
	set.reserved = res
	set.items = set.items[:0]
	for i, it := range batch {
		if codes[i] == pool.OK {
			ptrs[len(set.items)] = ptrs[i]
			set.items = append(set.items, it)
			continue
		}
		c.count([]pageItem{it}, codes[i:i+1])
	}
	l.describe(set.items, cuda.DeviceToHost, func(i int) cuda.DevPtr { return ptrs[i] })
	c.p.clk.lap(PhaseDescribe)
	return nil
}

// commit publishes a set's values once its gathers finished and counts
// them stored.
func (c *saveCall) commit(set *slotSet) {
	if set.reserved != nil {
		set.reserved.Commit()
		set.reserved = nil
	}
	for _, it := range set.items {
		r := &c.results[it.job]
		r.Stored++
		r.Bytes += it.bytes
	}
}
