package transfer

import (
	"context"
	"slices"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/crew"
	"github.com/kvctl/kvctl/pool"
)

// partCalls are the arguments and answers of one set's part calls, by
// call: one key, offset, part of staging and size each.
type partCalls struct {
	keys []string
	offs []int64
	vals [][]byte
	n    []int64
}

// fit makes c hold calls calls.
func (c *partCalls) fit(calls int) {
	if calls > len(c.keys) {
		c.keys, c.offs, c.vals, c.n = make([]string, calls), make([]int64, calls), make([][]byte, calls), make([]int64, calls)
	}
}

// getParts posts the Gets of set s's k pages into its staging buffer (one
// page after the other), each page in the lane's parts calls of one part
// (pool.PartGetter). A page's first part describes its copies (and, in
// kernel mode, writes their descriptors into s.descs) as if it were found
// whole; a call whose part was not flags itself, and finishLookups fails
// the page's request, so those copies are dropped.
func (c *loadCall) getParts(ctx context.Context, s *slotSet, k, _ int) *crew.Task {
	l, d, parts := c.l, s.scratch, c.l.parts()
	getter := l.o.Pool.(pool.PartGetter)
	d.parts.fit(k * parts)
	return l.crew.Post(k*parts, func(j int) error {
		i, p := j/parts, j%parts
		it := s.items[i]
		if p == 0 {
			d.ptrs[i] = l.stage.ptr(s.buffer, d.offs[i])
			d.describe(s.items, i, i+1, cuda.HostToDevice, func(int) bool { return true })
			if s.descs != nil {
				d.describeSet(s.descs, s.items, j, i, i+1)
			}
		}
		off, n := partOf(it.bytes(), p, parts)
		d.short[j] = false
		if n == 0 {
			return nil
		}
		pc := &d.parts
		pc.keys[j], pc.offs[j], pc.vals[j] = it.key, off, l.stage.bytes(s.buffer, d.offs[i]+off, n)
		err := getter.GetParts(ctx, pc.keys[j:j+1], pc.offs[j:j+1], pc.vals[j:j+1], pc.n[j:j+1])
		d.short[j], pc.vals[j] = pc.n[j] != it.bytes(), nil
		return err
	})
}

// foldParts turns the flags of the part calls of a set's k pages into one
// flag per page, as a set of one-page calls has them, and forgets the
// staging place of each page flagged.
func (d *setScratch) foldParts(k, parts int) {
	for i := range k {
		short := slices.Contains(d.short[i*parts:(i+1)*parts], true)
		d.short[i] = short
		if short {
			d.ptrs[i] = 0
		}
	}
}
