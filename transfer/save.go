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
	l, err := newLane(o, StagingGeometry(o.Batch, o.StagingBytes, o.maxPageBytes()), nil, o.StagingBytes, o.parallelFor(1))
	if err != nil {
		return nil, fmt.Errorf("saver: %w", err)
	}
	return &Saver{lane: l}, nil
}

// Geometry returns the staging geometry.
func (s *Saver) Geometry() Geometry { return s.lane.geo }

// Save copies the job's pages to the pool once after has completed (the
// forward pass that computed them; nil for none), batch by batch: gather
// to staging, wait for the copies, put. The gather of a batch overlaps the
// puts of the one before when the staging holds two buffers. It returns an
// error for a bad page reference, an unreachable pool or a device failure;
// per-page put failures are only counted.
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
	p := &pipeline{l: l, clk: &clk}
	sv := saveCall{s: s, p: p, opts: job.Options, res: &res, items: items}
	err = sv.run(ctx)
	if derr := p.drain(); err == nil && derr != nil {
		err = derr
	}
	if err != nil {
		err = fmt.Errorf("save request %q: %w", job.RequestID, err)
	}
	s.record(res, sv.calls, &clk, p.device)
	return res, err
}

// saveCall is the state of one Save.
type saveCall struct {
	s     *Saver
	p     *pipeline
	opts  pool.PutOptions
	res   *SaveResult
	items []pageItem
	next  int
	calls int64
}

// run stages batch after batch, putting each staged batch while the next
// one's copies run; a batch whose buffer is the next to be staged into
// (a single buffer) is put first.
func (c *saveCall) run(ctx context.Context) error {
	var pending *slotSet
	for {
		if pending != nil && c.p.peek() == pending {
			if err := c.put(ctx, pending); err != nil {
				return err
			}
			pending = nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		staged, err := c.stageNext(ctx)
		if err == nil && pending != nil {
			err = c.put(ctx, pending)
		}
		if err != nil || staged == nil {
			return err
		}
		pending = staged
	}
}

// stageNext queues the gather of the next batch of pages still absent
// (SkipExisting) into a free buffer; nil when no page is left.
func (c *saveCall) stageNext(ctx context.Context) (*slotSet, error) {
	l := c.s.lane
	none := []bool{false}
	for {
		batch := l.nextBatch(c.items, &c.next, none)
		if len(batch) == 0 {
			return nil, nil
		}
		if l.o.SkipExisting {
			var err error
			batch, err = c.s.dropExisting(ctx, batch, c.res)
			c.calls++
			c.p.clk.lap(PhaseResolve)
			if err != nil {
				return nil, err
			}
			if len(batch) == 0 {
				continue
			}
		}
		set, err := c.p.acquire()
		if err != nil {
			return nil, err
		}
		l.describe(batch, cuda.DeviceToHost, l.slotPtr(set))
		c.p.clk.lap(PhaseDescribe)
		set.items = append(set.items[:0], batch...)
		return set, c.p.submit(set, cuda.DeviceToHost, l.copies, PhaseStage)
	}
}

// put waits for set's gather and puts its pages.
func (c *saveCall) put(ctx context.Context, set *slotSet) error {
	if err := c.p.wait(set); err != nil {
		return err
	}
	l := c.s.lane
	batch := set.items
	items, codes := l.puts[:len(batch)], l.codes[:len(batch)]
	for i, it := range batch {
		items[i] = pool.PutItem{Key: it.key, Value: l.stage.slot(set.buffer, i, it.bytes), Options: c.opts}
	}
	calls, cpu, err := l.fan.put(ctx, l.o.Pool, items, codes, batchBytes(batch))
	c.calls += int64(calls)
	c.p.clk.lap(PhasePut)
	c.p.clk.addCPU(PhasePut, cpu)
	clear(items)
	if err != nil {
		return fmt.Errorf("pool put of %d pages: %w", len(batch), err)
	}
	c.res.count(batch, codes)
	return nil
}

// count adds a batch's put answers to r.
func (r *SaveResult) count(batch []pageItem, codes []pool.Code) {
	for i, code := range codes {
		switch code {
		case pool.OK:
			r.Stored++
			r.Bytes += batch[i].bytes
		case pool.ObjectAlreadyExists:
			r.AlreadyExists++
		default:
			r.Failed++
			r.FailedKeys = append(r.FailedKeys, batch[i].key)
		}
	}
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

func (s *Saver) record(r SaveResult, calls int64, clk *phaseClock, device time.Duration) {
	s.lane.o.Stats.add(func(t *Totals) {
		t.Phases.Add(clk.times)
		t.CPU.Add(clk.cpu)
		t.DeviceCopy += device
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
