package transfer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// AsyncLoader loads jobs in the background: Workers workers share one
// FIFO queue, each with its own stream, copier and staging share
// (WorkerGeometry). A worker loads the jobs it takes together, in one
// call through the pipeline a Loader's call runs (see take). Finished
// reports the jobs done since its last call, as the connector's
// get_finished does.
type AsyncLoader struct {
	lanes  []*lane
	arenas *arenaMap
	stats  *Stats
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	cond  *sync.Cond
	queue []queued
	// queuedPages counts the pages of the jobs queued.
	queuedPages int
	active      int
	closed      bool
	finished    []LoadResult
}

type queued struct {
	job       LoadJob
	submitted time.Time
}

// NewAsyncLoader starts o.Workers workers.
func NewAsyncLoader(o Options) (*AsyncLoader, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	geo := WorkerGeometry(o.Batch, o.StagingBytes, o.maxPageBytes(), o.Workers)
	arenas, err := directArenas(o)
	if err != nil {
		return nil, err
	}
	a := &AsyncLoader{arenas: arenas, stats: o.Stats}
	a.cond = sync.NewCond(&a.mu)
	for w := range o.Workers {
		l, err := newLane(o, geo, arenas, asyncSets(o.Workers), o.StagingBytes/int64(o.Workers), o.parallelFor(o.Workers, false))
		if err != nil {
			a.closeLanes()
			return nil, fmt.Errorf("async load worker %d: %w", w, err)
		}
		a.lanes = append(a.lanes, l)
	}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	for _, l := range a.lanes {
		a.wg.Go(func() { a.work(l) })
	}
	return a, nil
}

// Geometry returns each worker's staging geometry.
func (a *AsyncLoader) Geometry() Geometry { return a.lanes[0].geo }

// Submit queues a job; it fails after Close.
func (a *AsyncLoader) Submit(job LoadJob) error {
	q := queued{job: job}
	if a.stats != nil {
		q.submitted = time.Now()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return fmt.Errorf("submit load request %q: async loader closed", job.RequestID)
	}
	a.queue = append(a.queue, q)
	a.queuedPages += len(job.Pages)
	depth := len(a.queue)
	a.stats.add(func(t *Totals) { t.MaxQueue = max(t.MaxQueue, depth) })
	a.cond.Broadcast()
	return nil
}

// Pending is the number of jobs queued or in progress.
func (a *AsyncLoader) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.queue) + a.active
}

// Finished returns the results of the jobs finished since the last call,
// in the order they finished.
func (a *AsyncLoader) Finished() []LoadResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.finished
	a.finished = nil
	return out
}

// Wait blocks until no job is queued or in progress, or ctx ends.
func (a *AsyncLoader) Wait(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		a.mu.Lock()
		a.cond.Broadcast()
		a.mu.Unlock()
	})
	defer stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.queue)+a.active > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		a.cond.Wait()
	}
	return nil
}

// maxCycles bounds an async worker's call: at most that many cycles of
// its lane's sets (cyclePages), so that the first jobs of a long queue
// finish before the last start.
const maxCycles = 4

// work runs queued jobs until the loader is closed and the queue drained:
// each turn takes its share of the jobs queued (take) and loads them in
// one call, so that their sets overlap in the pipeline as a synchronous
// load's do.
func (a *AsyncLoader) work(l *lane) {
	for {
		batch, ok := a.take(maxCycles * l.cyclePages())
		if !ok {
			return
		}
		var start time.Time
		if a.stats != nil {
			start = time.Now()
		}
		results := a.load(l, batch)
		for i := range results {
			r := &results[i]
			if a.stats != nil {
				r.Wait, r.Transfer = start.Sub(batch[i].submitted), time.Since(start)
				a.stats.add(func(t *Totals) { t.Jobs++; t.Wait += r.Wait; t.Transfer += r.Transfer })
			}
		}
		a.mu.Lock()
		a.finished = append(a.finished, results...)
		a.active -= len(batch)
		a.cond.Broadcast()
		a.mu.Unlock()
	}
}

// load loads batch in one call on l; an error fails every job of the
// call, but a bad page reference fails only its own job: then each job
// is loaded alone.
func (a *AsyncLoader) load(l *lane, batch []queued) []LoadResult {
	jobs := make([]LoadJob, len(batch))
	for i, q := range batch {
		jobs[i] = q.job
	}
	results, err := l.load(a.ctx, jobs)
	if errors.Is(err, errBadRef) && len(jobs) > 1 {
		for i := range jobs {
			results[i] = a.load(l, batch[i:i+1])[0]
		}
		return results
	}
	for i := range results {
		results[i].Err = err
	}
	return results
}

// take pops the oldest jobs, waiting for one: a worker's share of the
// pages queued (divided among the workers), at most most pages, and at
// least one job; ok is false once closed and drained.
func (a *AsyncLoader) take(most int) ([]queued, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.queue) == 0 && !a.closed {
		a.cond.Wait()
	}
	if len(a.queue) == 0 {
		return nil, false
	}
	workers := max(1, len(a.lanes))
	most = min(most, (a.queuedPages+workers-1)/workers)
	n, pages := 1, len(a.queue[0].job.Pages)
	for n < len(a.queue) && pages+len(a.queue[n].job.Pages) <= most {
		pages += len(a.queue[n].job.Pages)
		n++
	}
	a.queuedPages -= pages
	batch := slices.Clone(a.queue[:n])
	clear(a.queue[:n])
	a.queue = a.queue[n:]
	a.active += n
	return batch, true
}

// Close stops accepting jobs, lets the workers finish the queued ones and
// frees their resources. Results not taken by Finished stay readable.
func (a *AsyncLoader) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return errors.New("async loader closed twice")
	}
	a.closed = true
	a.cond.Broadcast()
	a.mu.Unlock()
	a.wg.Wait()
	a.cancel()
	return a.closeLanes()
}

func (a *AsyncLoader) closeLanes() error {
	var errs []error
	for _, l := range a.lanes {
		errs = append(errs, l.close())
	}
	errs = append(errs, a.arenas.close())
	return errors.Join(errs...)
}
