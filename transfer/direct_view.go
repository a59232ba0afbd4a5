package transfer

import (
	"github.com/kvctl/kvctl/cuda"

	"github.com/kvctl/kvctl/pool"
)

// view looks the batch's values up in place, with up to Parallel
// concurrent ViewBatch calls, and records their device addresses in
// l.ptrs; set s holds the views until its copies finished. Pages not
// found whole fail their request.
func (c *loadCall) view(s *slotSet, batch []pageItem) error {
	l := c.l
	k := len(batch)
	s.items = append(s.items[:0], batch...)
	keys, views, codes, ptrs := l.keys[:k], l.views[:k], l.codes[:k], l.ptrs[:k]
	for i, it := range batch {
		keys[i] = it.key
	}
	err := c.viewSplit(s, keys, views, codes, ptrs)
	for i, it := range batch {
		if err == nil && (codes[i] != pool.OK || ptrs[i] == 0 || int64(len(views[i])) != it.bytes) {
			ptrs[i] = 0
			markMissing(c.results, c.failed, it)
		}
	}
	clear(views)
	c.p.clk.lap(PhaseGet)
	return err
}

// viewSplit looks the set's pages up in batches of Slots pages (one
// ViewBatch call each, up to Parallel at once), translating the views to
// device addresses; s keeps the releases.
func (c *loadCall) viewSplit(s *slotSet, keys []string, views [][]byte, codes []pool.Code, ptrs []cuda.DevPtr) error {
	arenas := c.l.arenas
	chunk := c.l.geo.Slots
	releases := make([]func(), (len(keys)+chunk-1)/chunk)
	calls, err := chunkCalls(len(keys), chunk, c.l.fan.most, func(j, lo, hi int) error {
		releases[j] = arenas.views.ViewBatch(keys[lo:hi], views[lo:hi], codes[lo:hi])
		return arenas.ptrs(views[lo:hi], ptrs[lo:hi])
	})
	c.calls += int64(calls)
	s.releases = append(s.releases, releases...)
	return err
}
