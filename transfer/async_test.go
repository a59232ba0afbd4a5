package transfer

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/kvctl/kvctl/cuda"
)

func TestAsyncLoader(t *testing.T) {
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			f := newFixture(t, 64, newMapStore())
			var jobs []LoadJob
			for j := range 8 {
				rs := refs(fmt.Sprintf("r%d", j), j%2, j*8, 8)
				f.seed(t, rs)
				jobs = append(jobs, LoadJob{RequestID: fmt.Sprintf("r%d", j), Pages: rs})
			}
			// r5 misses one page.
			delete(f.store.vals, "r5-43")
			o := f.options()
			o.Workers, o.Batch, o.Mode = workers, 3, cuda.ModeKernel
			a, err := NewAsyncLoader(o)
			if err != nil {
				t.Fatalf("NewAsyncLoader error = %v", err)
			}
			for _, j := range jobs {
				if err := a.Submit(j); err != nil {
					t.Fatalf("Submit(%s) error = %v", j.RequestID, err)
				}
			}
			if err := a.Wait(context.Background()); err != nil {
				t.Fatalf("Wait error = %v", err)
			}
			got := a.Finished()
			if again := a.Finished(); len(again) != 0 {
				t.Errorf("second Finished() = %d results, want none", len(again))
			}
			if err := a.Close(); err != nil {
				t.Errorf("Close error = %v", err)
			}
			if err := a.Submit(jobs[0]); err == nil {
				t.Errorf("Submit after Close succeeded, want an error")
			}
			checkAsyncResults(t, f, jobs, got, workers)
			tot := o.Stats.Totals()
			if tot.Jobs != 8 || tot.MaxQueue < 1 || tot.Missing != 1 {
				t.Errorf("Totals = %+v, want 8 jobs, a queue, 1 missing page", tot)
			}
		})
	}
}

func checkAsyncResults(t *testing.T, f *fixture, jobs []LoadJob, got []LoadResult, workers int) {
	t.Helper()
	if len(got) != len(jobs) {
		t.Fatalf("Finished() = %d results, want %d", len(got), len(jobs))
	}
	ids := make([]string, len(got))
	for i, r := range got {
		ids[i] = r.RequestID
	}
	if workers > 1 {
		sort.Strings(ids)
	}
	for i, r := range got {
		if ids[i] != jobs[i].RequestID {
			t.Errorf("Finished()[%d] is %s, want %s (FIFO with one worker)", i, ids[i], jobs[i].RequestID)
		}
		if r.RequestID == "r5" {
			if len(r.Missing) != 1 || r.Missing[0] != "r5-43" {
				t.Errorf("r5 result = %+v, want r5-43 missing", r)
			}
			continue
		}
		if !r.OK() {
			t.Errorf("%s result = %+v, want every page", r.RequestID, r)
		}
	}
	for _, j := range jobs {
		if j.RequestID != "r5" {
			f.checkLanded(t, j.Pages)
		}
	}
}

func TestAsyncLoaderReportsErrors(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	a, err := NewAsyncLoader(f.options())
	if err != nil {
		t.Fatalf("NewAsyncLoader error = %v", err)
	}
	defer a.Close()
	if err := a.Submit(LoadJob{RequestID: "bad", Pages: []PageRef{{Key: "k", Page: 99}}}); err != nil {
		t.Fatalf("Submit error = %v", err)
	}
	if err := a.Wait(context.Background()); err != nil {
		t.Fatalf("Wait error = %v", err)
	}
	got := a.Finished()
	if len(got) != 1 || got[0].Err == nil || a.Pending() != 0 {
		t.Errorf("Finished() = %+v, want one result with an error", got)
	}
}

func TestAsyncLoaderWaitCancelled(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	a, err := NewAsyncLoader(f.options())
	if err != nil {
		t.Fatalf("NewAsyncLoader error = %v", err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Wait(ctx); err != nil {
		t.Errorf("Wait(cancelled) with nothing queued = %v, want nil", err)
	}
}

func TestAsyncTakeBatchesItsShare(t *testing.T) {
	tests := []struct {
		workers, most, want int
	}{
		{workers: 1, most: 4, want: 1}, // one job, however large
		{workers: 1, most: 16, want: 2},
		{workers: 1, most: 23, want: 2},
		{workers: 1, most: 100, want: 4},
		{workers: 2, most: 100, want: 2}, // half the queue
		{workers: 3, most: 100, want: 1}, // 11 pages of 32: one job
		{workers: 8, most: 100, want: 1},
	}
	for _, tt := range tests {
		a := &AsyncLoader{lanes: make([]*lane, tt.workers)}
		a.cond = sync.NewCond(&a.mu)
		for j := range 4 {
			a.queue = append(a.queue, queued{job: LoadJob{RequestID: fmt.Sprint(j), Pages: make([]PageRef, 8)}})
			a.queuedPages += 8
		}
		got, ok := a.take(tt.most)
		if !ok || len(got) != tt.want || got[0].job.RequestID != "0" || len(a.queue) != 4-tt.want ||
			a.active != tt.want || a.queuedPages != 8*(4-tt.want) {
			t.Errorf("%d workers: take(%d) = %d jobs (first %q), %v, leaving %d queued (%d pages) and %d active; want %d from the oldest",
				tt.workers, tt.most, len(got), got[0].job.RequestID, ok, len(a.queue), a.queuedPages, a.active, tt.want)
		}
	}
}

func TestAsyncBatchFailsOnlyTheBadJob(t *testing.T) {
	f := newFixture(t, 16, newMapStore())
	good1, good2 := refs("g1", 0, 0, 4), refs("g2", 1, 4, 4)
	f.seed(t, good1)
	f.seed(t, good2)
	a, err := NewAsyncLoader(f.options())
	if err != nil {
		t.Fatalf("NewAsyncLoader error = %v", err)
	}
	defer a.Close()
	batch := []queued{
		{job: LoadJob{RequestID: "g1", Pages: good1}},
		{job: LoadJob{RequestID: "bad", Pages: []PageRef{{Key: "k", Page: 99}}}},
		{job: LoadJob{RequestID: "g2", Pages: good2}},
	}
	got := a.load(a.lanes[0], batch) // the workers are idle: nothing was submitted
	if len(got) != 3 || !got[0].OK() || got[1].Err == nil || !got[2].OK() {
		t.Errorf("load(g1, bad, g2) = %+v, want g1 and g2 whole and bad failed", got)
	}
	f.checkLanded(t, good1)
	f.checkLanded(t, good2)
}
