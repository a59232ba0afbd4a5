package transfer

import (
	"sync"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// directScratch is one direct set's arguments and answers of its store
// calls, so that the calls of the next set can run while this set's copies
// are described and queued.
type directScratch struct {
	keys  []string
	items []pool.PutItem
	views [][]byte // views (loads) or places (saves)
	codes []pool.Code
	ptrs  []cuda.DevPtr
}

func newDirectScratch(n int) *directScratch {
	return &directScratch{
		keys: make([]string, n), items: make([]pool.PutItem, n), views: make([][]byte, n),
		codes: make([]pool.Code, n), ptrs: make([]cuda.DevPtr, n),
	}
}

// prefetch is a direct set whose store calls (ViewBatch for loads,
// Reserve for saves) run on other goroutines.
type prefetch struct {
	set   *slotSet
	wg    sync.WaitGroup
	calls int
	err   error
}

// wait waits for the set's store calls.
func (f *prefetch) wait() {
	if f != nil {
		f.wg.Wait()
	}
}

// startDirect acquires the next set for batch (waiting for its last
// copies) and starts calls(set, k) on a goroutine of its own; nil when
// the batch is empty.
func startDirect(p *pipeline, batch []pageItem, calls func(s *slotSet, k int) (int, error)) (*prefetch, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	s, err := p.acquire()
	if err != nil {
		return nil, err
	}
	s.items = append(s.items[:0], batch...)
	f := &prefetch{set: s}
	f.wg.Go(func() { f.calls, f.err = calls(s, len(batch)) })
	return f, nil
}
