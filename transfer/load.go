package transfer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
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
	clk := newPhaseClock(l.o.Stats != nil)
	defer clk.stop()
	var c loadCall
	items, bad, err := l.resolve(len(jobs), func(j int) []PageRef { return jobs[j].Pages }, func() { c = newLoadCall(l, jobs) })
	results := c.results
	if err != nil {
		return results, fmt.Errorf("load request %q: %w", jobs[bad].RequestID, err)
	}
	clk.lap(stats.PhaseResolve)
	for _, job := range jobs {
		if job.Fence == nil {
			continue
		}
		if err := l.stream.WaitEvent(job.Fence); err != nil {
			return results, fmt.Errorf("load request %q: allocation fence: %w", job.RequestID, err)
		}
	}
	clk.lap(stats.PhaseFence)
	p := &pipeline{l: l, clk: &clk, landed: func(s *slotSet) { countLanded(results, s.items) }, device: deviceTimer{origin: l.origin}}
	c.p, c.items = p, items
	if l.arenas != nil {
		p.after = finisherFor(len(items), l.geo.SetPages)
	}
	err = p.run(c.path(ctx))
	if derr := p.drain(); err == nil && derr != nil {
		err = fmt.Errorf("load: %w", derr)
	}
	p.end()
	l.record(results, len(items), c.calls, &clk, p.device.total)
	return results, err
}

// newLoadCall is the state of a load of jobs on l, with their results
// named and their pages to count; the caller sets its pipeline and pages.
// These allocations grow with the jobs (1.1 MB for the 8,192 requests of a
// bench's GiB of 4 KiB pages), so a load makes them while the crew's
// helpers wake to resolve its pages (lane.resolve): in an execution trace
// of such a load on an H100 (2026-12-05, run 59) they took 0.26 ms
// before the resolving started, which then took 0.76 ms.
func newLoadCall(l *lane, jobs []LoadJob) loadCall {
	c := loadCall{l: l, results: make([]LoadResult, len(jobs)), failed: make([]bool, len(jobs)), failedIn: make([]int, len(jobs))}
	for j, job := range jobs {
		c.results[j] = LoadResult{RequestID: job.RequestID, Pages: len(job.Pages)}
	}
	return c
}

// record adds a load call's counters to the stats sink.
func (l *lane) record(results []LoadResult, pages int, calls int64, clk *phaseClock, device time.Duration) {
	l.o.Stats.add(func(t *Totals) {
		t.Phases.Add(clk.times)
		t.CPU.Add(clk.cpu)
		t.Helpers += clk.helpers
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

// NewLoader allocates the loader's stream, copier, crew and staging buffers
// (Geometry), or registers the pool's arenas in direct mode.
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
	l, err := newLane(o, geo, arenas, loadSets, o.StagingBytes, o.parallelFor(1, false))
	if err != nil {
		arenas.close()
		return nil, fmt.Errorf("loader: %w", err)
	}
	return &Loader{lane: l, arenas: arenas}, nil
}

// directArenas registers the pool's arenas for direct loads when o.Direct
// is set.
func directArenas(o Options) (*arenaMap, error) {
	store, ok := o.Pool.(ArenaStore)
	return directArenaMap(o, store, ok, "expose its arenas")
}

// directArenaMap registers the pool's arenas when o.Direct is set; src is
// the pool as the direction needs it, when ok says it is one (else what
// the pool lacks is named).
func directArenaMap(o Options, src pool.ArenaHolder, ok bool, lacks string) (*arenaMap, error) {
	if !o.Direct {
		return nil, nil
	}
	if !ok {
		return nil, fmt.Errorf("direct mode: pool %T does not %s (want an embedded mem:// pool)", o.Pool, lacks)
	}
	return cmp.Or(o.Arenas, DefaultArenas).acquire(o.Device, src)
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
