package transfer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// SaveJob is one request's computed pages to store.
type SaveJob struct {
	RequestID string
	Pages     []PageRef
	// Options apply to every put (soft pin, eviction group).
	Options pool.PutOptions
}

// SaveResult is what happened to one SaveJob.
type SaveResult struct {
	RequestID string `json:"request_id"`
	// Pages is the number of pages asked for.
	Pages int `json:"pages"`
	// Stored is the number of pages written; Bytes their size.
	Stored int   `json:"stored"`
	Bytes  int64 `json:"bytes"`
	// Existing is the number of pages skipped because Exist found them
	// (SkipExisting); AlreadyExists those whose put found the key.
	Existing      int `json:"existing"`
	AlreadyExists int `json:"already_exists"`
	// Failed is the number of puts that failed otherwise; they are not
	// retried (a lost write is only a future miss). FailedKeys names them.
	Failed     int      `json:"failed"`
	FailedKeys []string `json:"failed_keys,omitempty"`
}

// Saver stores GPU pages through one stream and one staging pool. Save
// calls are serialized.
type Saver struct {
	mu   sync.Mutex
	lane *lane
}

// NewSaver allocates the saver's stream, copier, crew and staging buffers, or in
// direct mode registers the pool's arenas (the pool must implement
// ArenaWriter).
func NewSaver(o Options) (*Saver, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	arenas, err := directWriter(o)
	if err != nil {
		return nil, fmt.Errorf("saver: %w", err)
	}
	l, err := newLane(o, StagingGeometry(o.Batch, o.StagingBytes, o.maxPageBytes()), arenas, saveSets, o.StagingBytes, o.parallelFor(1, true))
	if err != nil {
		arenas.close()
		return nil, fmt.Errorf("saver: %w", err)
	}
	return &Saver{lane: l}, nil
}

// directWriter registers the pool's arenas for direct saves when o.Direct
// is set.
func directWriter(o Options) (*arenaMap, error) {
	w, ok := o.Pool.(ArenaWriter)
	return directArenaMap(o, w, ok, "place values in its arenas")
}

// Geometry returns the staging geometry.
func (s *Saver) Geometry() Geometry { return s.lane.geo }

// Save copies the job's pages to the pool once after has completed (the
// forward pass that computed them; nil for none): SaveAll of one job.
func (s *Saver) Save(ctx context.Context, job SaveJob, after cuda.Event) (SaveResult, error) {
	results, err := s.SaveAll(ctx, []SaveJob{job}, after)
	return results[0], err
}

// SaveAll copies the jobs' pages (a forward pass's requests) to the pool
// once after has completed (nil for none), batch by batch across jobs:
// gather to staging, wait for the copies, put, each put with its job's
// options. The gather of a batch overlaps the puts of the one before when
// the staging holds two buffers. It returns one result per job, and an
// error for a bad page reference (before anything moves), an unreachable
// pool or a device failure; per-page put failures are only counted.
func (s *Saver) SaveAll(ctx context.Context, jobs []SaveJob, after cuda.Event) ([]SaveResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lane
	clk := newPhaseClock(l.o.Stats != nil)
	defer clk.stop()
	var results []SaveResult
	items, bad, err := l.resolve(len(jobs), func(j int) []PageRef { return jobs[j].Pages }, func() { results = newSaveResults(jobs) })
	if err != nil {
		return results, fmt.Errorf("save request %q: %w", jobs[bad].RequestID, err)
	}
	clk.lap(stats.PhaseResolve)
	if after != nil {
		if err := l.stream.WaitEvent(after); err != nil {
			return results, saveError(jobs, fmt.Errorf("waiting for the forward: %w", err))
		}
	}
	p := &pipeline{l: l, clk: &clk, device: deviceTimer{origin: l.origin}}
	c := saveCall{s: s, p: p, jobs: jobs, results: results, items: items}
	if l.arenas != nil {
		p.landed, p.after = c.commit, finisherFor(len(items), l.geo.SetPages)
	}
	err = p.run(c.path(ctx))
	if derr := p.drain(); err == nil && derr != nil {
		err = derr
	}
	p.end()
	s.record(results, c.calls, &clk, p.device.total)
	if err != nil {
		return results, saveError(jobs, err)
	}
	return results, nil
}

// newSaveResults are the results of jobs, named, with their pages
// counted; made while the crew resolves the pages (newLoadCall says why).
func newSaveResults(jobs []SaveJob) []SaveResult {
	results := make([]SaveResult, len(jobs))
	for j, job := range jobs {
		results[j] = SaveResult{RequestID: job.RequestID, Pages: len(job.Pages)}
	}
	return results
}

// saveError names the request of a one-job save, or the number of jobs.
func saveError(jobs []SaveJob, err error) error {
	if len(jobs) == 1 {
		return fmt.Errorf("save request %q: %w", jobs[0].RequestID, err)
	}
	return fmt.Errorf("save of %d requests: %w", len(jobs), err)
}

func (s *Saver) record(results []SaveResult, calls int64, clk *phaseClock, device time.Duration) {
	s.lane.o.Stats.add(func(t *Totals) {
		t.Phases.Add(clk.times)
		t.CPU.Add(clk.cpu)
		t.Helpers += clk.helpers
		t.DeviceCopy += device
		for _, r := range results {
			t.Pages += int64(r.Pages)
			t.Landed += int64(r.Stored)
			t.Bytes += r.Bytes
			t.Existing += int64(r.Existing)
			t.AlreadyExists += int64(r.AlreadyExists)
			t.Failed += int64(r.Failed)
		}
		t.StoreCalls += calls
		t.Jobs += int64(len(results))
	})
}

// Close frees the saver's resources.
func (s *Saver) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.lane.close(), s.lane.arenas.close())
}
