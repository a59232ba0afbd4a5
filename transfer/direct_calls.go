package transfer

import (
	"errors"
	"sync"
)

// DirectLaunchBytes is what one set of copies carries in direct mode, at
// least: the batches (transfer_batch_size pages, one store call each) of
// a set are looked up or reserved concurrently and copied in one launch,
// so that small pages do not cost a launch per batch.
const DirectLaunchBytes = 16 << 20

// directPages is the most pages a direct set carries: whole batches of
// slots pages, DirectLaunchBytes of pages of pageBytes or one batch.
func directPages(slots int, pageBytes int64) int {
	batches := max(1, DirectLaunchBytes/(int64(slots)*max(1, pageBytes)))
	return slots * int(batches)
}

// chunkCalls runs fn over [0, count) in chunks of at most chunk items (one
// store call each), on up to most goroutines (the calling one included),
// and returns the number of chunks and their errors joined.
func chunkCalls(count, chunk, most int, fn func(j, lo, hi int) error) (int, error) {
	n := (count + chunk - 1) / chunk
	errs := make([]error, n)
	run := func(first int) {
		for j := first; j < n; j += most {
			lo, hi := j*chunk, min((j+1)*chunk, count)
			errs[j] = fn(j, lo, hi)
		}
	}
	var wg sync.WaitGroup
	for g := 1; g < min(most, n); g++ {
		wg.Go(func() { run(g) })
	}
	run(0)
	wg.Wait()
	return n, errors.Join(errs...)
}
