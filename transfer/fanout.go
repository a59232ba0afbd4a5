package transfer

import (
	"context"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// MinCallBytes is the least a batch's store call moves when the batch is
// split over concurrent calls (Options.Parallel): smaller batches are not
// split.
const MinCallBytes = 128 << 10

// fanout splits a batch's store calls into contiguous ranges run
// concurrently on the lane's crew, so that the caller can queue the
// previous batch's copies meanwhile.
type fanout struct {
	// most is the most concurrent calls (Options.Parallel).
	most int
	// crew runs the calls: most-1 helpers besides the waiting goroutine;
	// it measures their CPU time when the lane keeps stats.
	crew *crew
}

// calls is the number of calls a batch of count pages of bytes bytes is
// split into.
func (f fanout) calls(count int, bytes int64) int {
	return int(max(1, min(int64(f.most), int64(count), bytes/MinCallBytes)))
}

// fanTask is a batch's store calls in flight.
type fanTask struct{ t *crewTask }

// start posts fn(lo, hi) for every range to the crew and returns at once;
// the caller must wait for the task. With inline (the caller has nothing
// to do meanwhile) the caller takes ranges too before start returns.
func (f fanout) start(count int, bytes int64, inline bool, fn func(lo, hi int) error) *fanTask {
	n := f.calls(count, bytes)
	t := f.crew.post(n, func(k int) error { return fn(k*count/n, (k+1)*count/n) })
	if inline {
		t.runAll()
	}
	return &fanTask{t: t}
}

// wait waits for the calls and returns their number, the CPU time the
// helpers' threads spent on them (when measuring) and the first error, in
// range order.
func (t *fanTask) wait() (int, time.Duration, error) {
	n, _ := t.t.wait()
	cpu := time.Duration(t.t.cpu.Load())
	for _, err := range t.t.errs {
		if err != nil {
			return n, cpu, err
		}
	}
	return n, cpu, nil
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
