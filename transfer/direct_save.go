package transfer

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
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
	err := c.reserveSplit(ctx, set, items, dsts, codes, ptrs)
	clear(items)
	clear(dsts)
	c.p.clk.lap(PhasePut)
	if err != nil {
		set.finish()
		return fmt.Errorf("pool reserve of %d pages: %w", k, err)
	}
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

// reserveSplit reserves the set's pages in batches of Slots pages (one
// Reserve call each, up to Parallel at once) and translates the places to
// device addresses; set keeps the reservations.
func (c *saveCall) reserveSplit(ctx context.Context, set *slotSet, items []pool.PutItem, dsts [][]byte, codes []pool.Code, ptrs []cuda.DevPtr) error {
	l := c.s.lane
	chunk := l.geo.Slots
	res := make([]*mem.Reservation, (len(items)+chunk-1)/chunk)
	calls, err := chunkCalls(len(items), chunk, l.fan.most, func(j, lo, hi int) error {
		var err error
		if res[j], err = l.arenas.writer.Reserve(ctx, items[lo:hi], dsts[lo:hi], codes[lo:hi]); err != nil {
			return err
		}
		return l.arenas.ptrs(dsts[lo:hi], ptrs[lo:hi])
	})
	c.calls += int64(calls)
	for _, r := range res {
		if r != nil {
			set.reserved = append(set.reserved, r)
		}
	}
	return err
}

// commit publishes a set's values once its gathers finished and counts
// them stored.
func (c *saveCall) commit(set *slotSet) {
	for _, r := range set.reserved {
		r.Commit()
	}
	clear(set.reserved)
	set.reserved = set.reserved[:0]
	for _, it := range set.items {
		r := &c.results[it.job]
		r.Stored++
		r.Bytes += it.bytes
	}
}
