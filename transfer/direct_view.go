package transfer

import (
	"errors"
	"sync"

	"github.com/kvctl/kvctl/cuda"

	"github.com/kvctl/kvctl/pool"
)

// minViewPages is the fewest pages one ViewBatch call of a split batch
// looks up: smaller batches are one call.
const minViewPages = 256

// viewCalls is the number of concurrent ViewBatch calls a batch of count
// pages is split into, at most most.
func viewCalls(count, most int) int {
	return max(1, min(most, count/minViewPages))
}

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

// viewSplit runs the ViewBatch calls of a batch, concurrently when it is
// large, translating the views to device addresses; s keeps the
// releases.
func (c *loadCall) viewSplit(s *slotSet, keys []string, views [][]byte, codes []pool.Code, ptrs []cuda.DevPtr) error {
	arenas := c.l.arenas
	k := len(keys)
	n := viewCalls(k, c.l.fan.most)
	releases := make([]func(), n)
	errs := make([]error, n)
	call := func(j int) {
		lo, hi := j*k/n, (j+1)*k/n
		releases[j] = arenas.views.ViewBatch(keys[lo:hi], views[lo:hi], codes[lo:hi])
		errs[j] = arenas.ptrs(views[lo:hi], ptrs[lo:hi])
	}
	var wg sync.WaitGroup
	for j := 1; j < n; j++ {
		wg.Go(func() { call(j) })
	}
	call(0)
	wg.Wait()
	s.releases = append(s.releases, releases...)
	return errors.Join(errs...)
}
