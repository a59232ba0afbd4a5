package transfer

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// MinCallBytes is the least a batch's store call moves when the batch is
// split over concurrent calls (Options.Parallel): smaller batches are not
// split.
const MinCallBytes = 128 << 10

// fanout splits a batch's store calls into contiguous ranges run
// concurrently, on goroutines of their own, so that the caller can queue
// the previous batch's copies meanwhile.
type fanout struct {
	// most is the most concurrent calls (Options.Parallel).
	most int
	// measure sums the CPU time of the other goroutines' threads.
	measure bool
}

// calls is the number of calls a batch of count pages of bytes bytes is
// split into.
func (f fanout) calls(count int, bytes int64) int {
	return int(max(1, min(int64(f.most), int64(count), bytes/MinCallBytes)))
}

// fanTask is a batch's store calls in flight.
type fanTask struct {
	wg   sync.WaitGroup
	errs []error
	cpu  atomic.Int64
}

// start runs fn(lo, hi) for every range, each on a goroutine of its own,
// and returns at once; the caller must wait for the task. With inline
// (the caller has nothing to do meanwhile) the first range runs on the
// caller's goroutine, and start returns once it is done.
func (f fanout) start(count int, bytes int64, inline bool, fn func(lo, hi int) error) *fanTask {
	n := f.calls(count, bytes)
	t := &fanTask{errs: make([]error, n)}
	first := 0
	if inline {
		first = 1
	}
	for k := first; k < n; k++ {
		lo, hi := k*count/n, (k+1)*count/n
		t.wg.Go(func() {
			if f.measure {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				start := threadCPU()
				defer func() { t.cpu.Add(int64(threadCPU() - start)) }()
			}
			t.errs[k] = fn(lo, hi)
		})
	}
	if inline {
		t.errs[0] = fn(0, count/n)
	}
	return t
}

// wait waits for the calls and returns their number, the CPU time their
// threads spent (when measuring) and the first error, in range order.
func (t *fanTask) wait() (int, time.Duration, error) {
	t.wg.Wait()
	cpu := time.Duration(t.cpu.Load())
	for _, err := range t.errs {
		if err != nil {
			return len(t.errs), cpu, err
		}
	}
	return len(t.errs), cpu, nil
}

// get starts store.Get of keys into bufs.
func (f fanout) get(ctx context.Context, store pool.Store, keys []string, bufs [][]byte, n []int64, bytes int64, inline bool) *fanTask {
	return f.start(len(keys), bytes, inline, func(lo, hi int) error {
		return store.Get(ctx, keys[lo:hi], bufs[lo:hi], n[lo:hi])
	})
}

// put starts store.Put of items.
func (f fanout) put(ctx context.Context, store pool.Store, items []pool.PutItem, codes []pool.Code, bytes int64, inline bool) *fanTask {
	return f.start(len(items), bytes, inline, func(lo, hi int) error {
		return store.Put(ctx, items[lo:hi], codes[lo:hi])
	})
}
