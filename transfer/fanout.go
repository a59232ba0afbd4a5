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
// concurrently, one on the calling goroutine.
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

// run calls fn(lo, hi) for every range and returns the number of calls,
// the CPU time the helper goroutines' threads spent (when measuring; the
// caller's own is the caller's to measure) and the first error, in range
// order.
func (f fanout) run(count int, bytes int64, fn func(lo, hi int) error) (int, time.Duration, error) {
	n := f.calls(count, bytes)
	if n == 1 {
		return 1, 0, fn(0, count)
	}
	errs := make([]error, n)
	var cpu atomic.Int64
	var wg sync.WaitGroup
	for k := 1; k < n; k++ {
		lo, hi := k*count/n, (k+1)*count/n
		wg.Go(func() {
			if f.measure {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				start := threadCPU()
				defer func() { cpu.Add(int64(threadCPU() - start)) }()
			}
			errs[k] = fn(lo, hi)
		})
	}
	errs[0] = fn(0, count/n)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return n, time.Duration(cpu.Load()), err
		}
	}
	return n, time.Duration(cpu.Load()), nil
}

// get is store.Get of keys into bufs, split by run.
func (f fanout) get(ctx context.Context, store pool.Store, keys []string, bufs [][]byte, n []int64, bytes int64) (int, time.Duration, error) {
	return f.run(len(keys), bytes, func(lo, hi int) error {
		return store.Get(ctx, keys[lo:hi], bufs[lo:hi], n[lo:hi])
	})
}

// put is store.Put of items, split by run.
func (f fanout) put(ctx context.Context, store pool.Store, items []pool.PutItem, codes []pool.Code, bytes int64) (int, time.Duration, error) {
	return f.run(len(items), bytes, func(lo, hi int) error {
		return store.Put(ctx, items[lo:hi], codes[lo:hi])
	})
}
