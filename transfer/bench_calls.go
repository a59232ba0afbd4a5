package transfer

import (
	"context"
	"fmt"
)

// jobs cuts the pages into requests of RequestPages pages.
func (b *benchRun) jobs() []LoadJob {
	var jobs []LoadJob
	for _, call := range b.calls() {
		jobs = append(jobs, call...)
	}
	return jobs
}

// calls cuts the pages into the transfer's calls (one without CallPages),
// and each call's pages into requests of RequestPages pages.
func (b *benchRun) calls() [][]LoadJob {
	per := b.o.CallPages
	if per == 0 {
		per = b.o.Pages
	}
	var calls [][]LoadJob
	n := 0
	for first := 0; first < b.o.Pages; first += per {
		last := min(first+per, b.o.Pages)
		var call []LoadJob
		for start := first; start < last; start += b.o.RequestPages {
			job := LoadJob{RequestID: fmt.Sprintf("bench-%d", n)}
			for i := start; i < min(start+b.o.RequestPages, last); i++ {
				job.Pages = append(job.Pages, PageRef{Key: b.key(i), Page: i})
			}
			call, n = append(call, job), n+1
		}
		calls = append(calls, call)
	}
	return calls
}

// callAll makes the transfer's calls one after the other, fn on each
// call's jobs, and gathers their results in *results (emptied first); it
// stops at the first error, with the results so far.
func callAll[J, R any](ctx context.Context, calls [][]J, results *[]R, fn func(context.Context, []J) ([]R, error)) error {
	*results = (*results)[:0]
	for _, jobs := range calls {
		rs, err := fn(ctx, jobs)
		*results = append(*results, rs...)
		if err != nil {
			return err
		}
	}
	return nil
}

// key is page i's key in the pool: the run's prefix, page size and seed
// make it, so that runs of other sizes or data never share values.
func (b *benchRun) key(i int) string {
	return fmt.Sprintf("%s/%d/%d/%d", b.o.KeyPrefix, b.o.PageBytes, b.o.Seed, i)
}

// submitAll submits every job to a and waits for them.
func submitAll(ctx context.Context, a *AsyncLoader, jobs []LoadJob) error {
	for _, j := range jobs {
		if err := a.Submit(j); err != nil {
			return err
		}
	}
	return a.Wait(ctx)
}
