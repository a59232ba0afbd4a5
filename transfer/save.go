package transfer

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
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

// NewSaver allocates the saver's stream, copier and staging slots. Direct
// mode is refused: no pool offers a put that writes into its arenas.
func NewSaver(o Options) (*Saver, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.Direct {
		return nil, errors.New("saver: direct mode supports loads only (the pool offers no put into its arenas)")
	}
	l, err := newLane(o, StagingGeometry(o.Batch, o.StagingBytes, o.maxPageBytes()), nil)
	if err != nil {
		return nil, fmt.Errorf("saver: %w", err)
	}
	return &Saver{lane: l}, nil
}

// Geometry returns the staging geometry.
func (s *Saver) Geometry() Geometry { return s.lane.geo }

// Save copies the job's pages to the pool once after has completed (the
// forward pass that computed them; nil for none), batch by batch: gather
// to staging, synchronize, put. It returns an error for a bad page
// reference, an unreachable pool or a device failure; per-page put
// failures are only counted.
func (s *Saver) Save(ctx context.Context, job SaveJob, after cuda.Event) (SaveResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lane
	res := SaveResult{RequestID: job.RequestID, Pages: len(job.Pages)}
	clk := newPhaseClock(l.o.Stats != nil)
	defer clk.stop()
	items, err := resolvePages(nil, l.o.Pools, 0, job.Pages)
	if err != nil {
		return res, fmt.Errorf("save request %q: %w", job.RequestID, err)
	}
	clk.lap(PhaseResolve)
	if after != nil {
		if err := l.stream.WaitEvent(after); err != nil {
			return res, fmt.Errorf("save request %q: waiting for the forward: %w", job.RequestID, err)
		}
	}
	calls := int64(0)
	none := make([]bool, 1)
	for next := 0; ; {
		batch := l.nextBatch(items, &next, none)
		if len(batch) == 0 {
			break
		}
		if err = ctx.Err(); err == nil {
			var n int64
			n, err = s.saveBatch(ctx, batch, job.Options, &res, &clk)
			calls += n
		}
		if err != nil {
			err = fmt.Errorf("save request %q: %w", job.RequestID, err)
			break
		}
	}
	s.record(res, calls, &clk)
	return res, err
}

// saveBatch saves one batch and returns the number of store calls made.
func (s *Saver) saveBatch(ctx context.Context, batch []pageItem, opts pool.PutOptions, res *SaveResult, clk *phaseClock) (int64, error) {
	l := s.lane
	calls := int64(0)
	if l.o.SkipExisting {
		var err error
		batch, err = s.dropExisting(ctx, batch, res)
		calls++
		clk.lap(PhaseResolve)
		if err != nil || len(batch) == 0 {
			return calls, err
		}
	}
	l.describe(batch, cuda.DeviceToHost, l.stage.ptr)
	clk.lap(PhaseDescribe)
	if err := l.run(l.copies, cuda.DeviceToHost, PhaseStage, clk); err != nil {
		return calls, err
	}
	items := make([]pool.PutItem, len(batch))
	for i, it := range batch {
		items[i] = pool.PutItem{Key: it.key, Value: l.stage.slot(i, it.bytes), Options: opts}
	}
	codes := make([]pool.Code, len(batch))
	err := l.o.Pool.Put(ctx, items, codes)
	calls++
	clk.lap(PhasePut)
	if err != nil {
		return calls, fmt.Errorf("pool put of %d pages: %w", len(batch), err)
	}
	for i, c := range codes {
		switch c {
		case pool.OK:
			res.Stored++
			res.Bytes += batch[i].bytes
		case pool.ObjectAlreadyExists:
			res.AlreadyExists++
		default:
			res.Failed++
			res.FailedKeys = append(res.FailedKeys, batch[i].key)
		}
	}
	return calls, nil
}

// dropExisting asks Exist for the batch's keys and returns the pages
// absent (or whose probe failed: the put decides for those).
func (s *Saver) dropExisting(ctx context.Context, batch []pageItem, res *SaveResult) ([]pageItem, error) {
	keys := s.lane.keys[:len(batch)]
	for i, it := range batch {
		keys[i] = it.key
	}
	status := make([]int, len(batch))
	if err := s.lane.o.Pool.Exist(ctx, keys, status); err != nil {
		return nil, fmt.Errorf("pool exist of %d pages: %w", len(batch), err)
	}
	out := batch[:0]
	for i, it := range batch {
		if status[i] == 1 {
			res.Existing++
			continue
		}
		out = append(out, it)
	}
	return out, nil
}

func (s *Saver) record(r SaveResult, calls int64, clk *phaseClock) {
	s.lane.o.Stats.add(func(t *Totals) {
		t.Phases.Add(clk.times)
		t.CPU.Add(clk.cpu)
		t.Pages += int64(r.Pages)
		t.Landed += int64(r.Stored)
		t.Bytes += r.Bytes
		t.Existing += int64(r.Existing)
		t.AlreadyExists += int64(r.AlreadyExists)
		t.Failed += int64(r.Failed)
		t.StoreCalls += calls
		t.Jobs++
	})
}

// Close frees the saver's resources.
func (s *Saver) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lane.close()
}
