package transfer

import (
	"context"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/crew"
	"github.com/kvctl/kvctl/pool"
)

// viewChunks posts the lookups of set s's k pages in the pool's arenas to
// the crew in batches of chunk pages (one ViewBatch call each), which
// translate the views to device addresses, describe the copies of the
// pages found whole (and, in kernel mode, write their descriptors into
// s.descs) and flag the batches with a page that was not; s keeps the
// releases, which end the views once its copies finished.
func (c *loadCall) viewChunks(_ context.Context, s *slotSet, k, chunk int) *crew.Task {
	arenas, d := c.l.arenas, s.scratch
	first := len(s.releases)
	s.releases = append(s.releases, make([]func(), (k+chunk-1)/chunk)...)
	return chunkCalls(c.l.crew, k, chunk, func(j, lo, hi int) error {
		for i := lo; i < hi; i++ {
			d.keys[i] = s.items[i].key
		}
		s.releases[first+j] = arenas.views.ViewBatch(d.keys[lo:hi], d.vals[lo:hi], d.codes[lo:hi])
		err := arenas.ptrs(d.vals[lo:hi], d.ptrs[lo:hi])
		d.short[j] = false
		for i := lo; i < hi; i++ {
			if !viewedWhole(d, i, s.items[i]) {
				d.ptrs[i], d.short[j] = 0, true
			}
		}
		clear(d.vals[lo:hi])
		d.describe(s.items, lo, hi, cuda.HostToDevice, func(int) bool { return true })
		if s.descs != nil {
			d.describeSet(s.descs, s.items, j, lo, hi)
		}
		return err
	})
}

// viewedWhole says whether item it (number i of its set) was found with
// its page's size and a device address.
func viewedWhole(d *setScratch, i int, it pageItem) bool {
	return d.codes[i] == pool.OK && d.ptrs[i] != 0 && int64(len(d.vals[i])) == it.bytes()
}
