package transfer

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// startPutParts reserves the places of set w's gathered pages in the pool
// (pool.Reserver, Mooncake's PutStart) and posts the copies of their
// parts from staging into them to the crew, the lane's parts calls a
// page, as Mooncake's client moves one object in slices between PutStart
// and PutEnd; finishPutParts commits them.
func (c *saveCall) startPutParts(ctx context.Context, w *setWork) error {
	l, s := c.s.lane, w.set
	d, k, parts := s.scratch, len(s.items), l.parts()
	for i, it := range s.items {
		d.items[i] = c.reserveItem(it)
	}
	r, err := l.o.Pool.(pool.Reserver).Reserve(ctx, d.items[:k], d.vals[:k], d.codes[:k])
	clear(d.items[:k])
	c.calls++
	if err != nil {
		clear(d.vals[:k])
		return fmt.Errorf("pool reserve of %d pages: %w", k, err)
	}
	s.reserved = append(s.reserved, r)
	w.task = l.crew.Post(k*parts, func(j int) error {
		i, p := j/parts, j%parts
		if d.codes[i] != pool.OK {
			return nil
		}
		off, n := partOf(s.items[i].bytes(), p, parts)
		copy(d.vals[i][off:off+n], l.stage.bytes(s.buffer, d.offs[i]+off, n))
		return nil
	})
	return nil
}

// finishPutParts waits for the copies of set w's parts, commits the
// places reserved (PutEnd) and counts the answers.
func (c *saveCall) finishPutParts(w *setWork) error {
	w.wait()
	c.p.clk.lap(stats.PhasePut)
	c.p.clk.addCPU(stats.PhasePut, w.cpu)
	s, d := w.set, w.set.scratch
	k := len(s.items)
	clear(d.vals[:k])
	for _, r := range s.reserved {
		r.Commit()
	}
	clear(s.reserved)
	s.reserved = s.reserved[:0]
	c.count(s.items, d.codes[:k])
	return nil
}
