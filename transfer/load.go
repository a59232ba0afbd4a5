package transfer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// LoadJob is one request's pages to load.
type LoadJob struct {
	RequestID string
	Pages     []PageRef
	// Fence, when set, marks the end of the pages' previous use (the
	// allocation fence): the copies into the pages wait for it on the
	// device, without blocking the caller.
	Fence cuda.Event
}

// LoadResult is what happened to one LoadJob.
type LoadResult struct {
	RequestID string `json:"request_id"`
	// Pages is the number of pages asked for; Landed those copied to the
	// GPU, Bytes their size.
	Pages  int   `json:"pages"`
	Landed int   `json:"landed"`
	Bytes  int64 `json:"bytes"`
	// Missing lists the keys a Get did not return whole (absent, evicted,
	// or of another size). A request with a missing page must be restarted;
	// its other pages were skipped.
	Missing []string `json:"missing,omitempty"`
	// Wait is the time the job spent queued and Transfer the time a worker
	// spent on it (AsyncLoader with Stats only).
	Wait     time.Duration `json:"wait_ns,omitempty"`
	Transfer time.Duration `json:"transfer_ns,omitempty"`
	// Err is set when the job failed as a whole (pool unreachable, device
	// error, cancelled).
	Err error `json:"-"`
}

// OK reports whether every page landed.
func (r LoadResult) OK() bool { return r.Err == nil && len(r.Missing) == 0 && r.Landed == r.Pages }

// load runs jobs on the lane. On an error the results say what landed
// before it.
func (l *lane) load(ctx context.Context, jobs []LoadJob) ([]LoadResult, error) {
	results := make([]LoadResult, len(jobs))
	clk := newPhaseClock(l.o.Stats != nil)
	defer clk.stop()
	var items []pageItem
	var err error
	for j, job := range jobs {
		results[j] = LoadResult{RequestID: job.RequestID, Pages: len(job.Pages)}
		if items, err = resolvePages(items, l.o.Pools, j, job.Pages); err != nil {
			return results, fmt.Errorf("load request %q: %w", job.RequestID, err)
		}
	}
	clk.lap(PhaseResolve)
	for _, job := range jobs {
		if job.Fence == nil {
			continue
		}
		if err := l.stream.WaitEvent(job.Fence); err != nil {
			return results, fmt.Errorf("load request %q: allocation fence: %w", job.RequestID, err)
		}
	}
	clk.lap(PhaseFence)
	p := &pipeline{l: l, clk: &clk, landed: func(s *slotSet) { countLanded(results, s.items) }}
	failed := make([]bool, len(jobs))
	calls := int64(0)
	for next := 0; err == nil; {
		batch := l.nextBatch(items, &next, failed)
		if len(batch) == 0 {
			break
		}
		if err = ctx.Err(); err == nil {
			var n int
			n, err = l.loadBatch(ctx, p, batch, results, failed)
			calls += int64(n)
		}
	}
	if derr := p.drain(); err == nil && derr != nil {
		err = fmt.Errorf("load: %w", derr)
	}
	l.record(results, len(items), calls, &clk, p.device)
	return results, err
}

// loadBatch fetches one batch into a free staging buffer (or views it in
// place, in direct mode) and queues its copies to the GPU; it returns the
// number of store calls made.
func (l *lane) loadBatch(ctx context.Context, p *pipeline, batch []pageItem, results []LoadResult, failed []bool) (int, error) {
	s, err := p.acquire()
	if err != nil {
		return 0, err
	}
	if l.arenas != nil {
		return 1, l.loadDirect(p, s, batch, results, failed)
	}
	l.describe(batch, cuda.HostToDevice, l.slotPtr(s))
	p.clk.lap(PhaseDescribe)
	keys, bufs, n := l.keys[:len(batch)], l.bufs[:len(batch)], l.n[:len(batch)]
	for i, it := range batch {
		keys[i], bufs[i] = it.key, l.stage.slot(s.buffer, i, it.bytes)
	}
	calls, cpu, err := l.fan.get(ctx, l.o.Pool, keys, bufs, n, batchBytes(batch))
	p.clk.lap(PhaseGet)
	p.clk.addCPU(PhaseGet, cpu)
	if err != nil {
		return calls, fmt.Errorf("pool get of %d pages: %w", len(batch), err)
	}
	for i, it := range batch {
		if n[i] != it.bytes {
			markMissing(results, failed, it)
		}
	}
	return calls, l.unstage(p, s, batch, failed)
}

// loadDirect views the batch's values in the pool's arenas; set s holds
// the views until the copies from them finished.
func (l *lane) loadDirect(p *pipeline, s *slotSet, batch []pageItem, results []LoadResult, failed []bool) error {
	store := l.arenas.store
	ptrs := l.ptrs[:len(batch)]
	clear(ptrs)
	for i, it := range batch {
		b, release, code := store.View(it.key)
		s.releases = append(s.releases, release)
		if code != pool.OK || int64(len(b)) != it.bytes {
			markMissing(results, failed, it)
			continue
		}
		ptr, err := l.arenas.ptr(b)
		if err != nil {
			s.finish()
			return err
		}
		ptrs[i] = ptr
	}
	p.clk.lap(PhaseGet)
	l.describe(batch, cuda.HostToDevice, func(i int) cuda.DevPtr { return ptrs[i] })
	p.clk.lap(PhaseDescribe)
	return l.unstage(p, s, batch, failed)
}

// unstage queues the copies of the pages of requests still whole from set
// s to their GPU pages; they count as landed once the copies finished.
func (l *lane) unstage(p *pipeline, s *slotSet, batch []pageItem, failed []bool) error {
	copies := l.keep(batch, func(i int) bool { return !failed[batch[i].job] })
	s.items = s.items[:0]
	for _, it := range batch {
		if !failed[it.job] {
			s.items = append(s.items, it)
		}
	}
	return p.submit(s, cuda.HostToDevice, copies, PhaseUnstage)
}

// countLanded adds pages whose copies finished to their results.
func countLanded(results []LoadResult, items []pageItem) {
	for _, it := range items {
		results[it.job].Landed++
		results[it.job].Bytes += it.bytes
	}
}

func markMissing(results []LoadResult, failed []bool, it pageItem) {
	results[it.job].Missing = append(results[it.job].Missing, it.key)
	failed[it.job] = true
}

// record adds a load call's counters to the stats sink.
func (l *lane) record(results []LoadResult, pages int, calls int64, clk *phaseClock, device time.Duration) {
	l.o.Stats.add(func(t *Totals) {
		t.Phases.Add(clk.times)
		t.CPU.Add(clk.cpu)
		t.DeviceCopy += device
		t.Pages += int64(pages)
		t.StoreCalls += calls
		for _, r := range results {
			t.Landed += int64(r.Landed)
			t.Bytes += r.Bytes
			t.Missing += int64(len(r.Missing))
		}
	})
}

// Loader loads pages synchronously through one stream and one staging
// pool. Load calls are serialized.
type Loader struct {
	mu     sync.Mutex
	lane   *lane
	arenas *arenaMap
}

// NewLoader allocates the loader's stream, copier and staging slots
// (StagingGeometry), or registers the pool's arenas in direct mode.
func NewLoader(o Options) (*Loader, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	geo := StagingGeometry(o.Batch, o.StagingBytes, o.maxPageBytes())
	arenas, err := directArenas(o)
	if err != nil {
		return nil, err
	}
	l, err := newLane(o, geo, arenas, o.StagingBytes, o.parallelFor(1))
	if err != nil {
		arenas.close()
		return nil, fmt.Errorf("loader: %w", err)
	}
	return &Loader{lane: l, arenas: arenas}, nil
}

// directArenas registers the pool's arenas when o.Direct is set.
func directArenas(o Options) (*arenaMap, error) {
	if !o.Direct {
		return nil, nil
	}
	return newArenaMap(o.Device, o.Pool)
}

// Geometry returns the staging geometry (Warning says when the batch was
// reduced).
func (l *Loader) Geometry() Geometry { return l.lane.geo }

// Load loads every job's pages, batch after batch, and returns one result
// per job. A page that does not exist on the GPU side is an error before
// anything moves; a missing pool page only fails its job (see
// LoadResult.Missing). On an error (pool unreachable, device failure,
// cancelled context) the results say what landed before it.
func (l *Loader) Load(ctx context.Context, jobs []LoadJob) ([]LoadResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lane.load(ctx, jobs)
}

// Close frees the loader's resources.
func (l *Loader) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.lane.close(), l.arenas.close())
}
