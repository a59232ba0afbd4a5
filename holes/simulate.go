package holes

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/workload"
)

// SimOptions configure Simulate.
type SimOptions struct {
	// Keys decides the page keys (the scope is each request's own).
	Keys keys.Settings
	// SoftPinTTL, when positive, soft-pins every put for that long.
	SoftPinTTL time.Duration
	// GroupBlocks puts every page of a block into the block's eviction
	// group (its group key).
	GroupBlocks bool
	// EvictionRatio and Watermark are the master's eviction_ratio and
	// eviction_high_watermark_ratio (defaults 0.05 and 0.90).
	EvictionRatio float64
	Watermark     float64
	// LeaseTTL is default_kv_lease_ttl (default 10 s).
	LeaseTTL time.Duration
	// Segments is the number of pool segments (default 4, as mem).
	Segments int
	// PutBatch is the pages per put call, the connector's
	// transfer_batch_size (default DefaultPutBatch); the master's eviction
	// loop runs between calls.
	PutBatch int
	// Progress, when set, is called as requests are replayed with the
	// capacity of the run and the number of requests done in it.
	Progress func(capacity int64, done int)
}

// DefaultPutBatch is the connector's default transfer_batch_size.
const DefaultPutBatch = 64

// Prepared is a request reduced to what the simulation needs: its arrival
// time, prompt length and block hashes.
type Prepared struct {
	ID           string
	ArrivalMS    int64
	PromptTokens int
	Hashes       []keys.Hash
}

// Run is one simulated capacity.
type Run struct {
	CapacityBytes int64       `json:"capacity_bytes"`
	Summary       stats.Holes `json:"summary"`
	// FailedPuts counts pages whose put failed (no room even after eviction).
	FailedPuts int64     `json:"failed_puts"`
	Pool       pool.Stat `json:"pool"`
}

// Prepare hashes every request of src once, so several capacities can be
// simulated from the same chains.
func Prepare(ctx context.Context, src workload.Source, s keys.Settings) ([]Prepared, error) {
	var out []Prepared
	err := src.Each(func(req workload.Request) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := s.Hashes(req.Scope(), req.Tokens)
		if err != nil {
			return fmt.Errorf("request %q: %w", req.ID, err)
		}
		out = append(out, Prepared{ID: req.ID, ArrivalMS: req.ArrivalMS, PromptTokens: len(req.Tokens), Hashes: h})
		return nil
	})
	return out, err
}

// Sweep simulates every capacity, in parallel over the cores, and returns
// the runs in the order of capacities.
func Sweep(ctx context.Context, reqs []Prepared, opts SimOptions, capacities []int64) ([]Run, error) {
	runs := make([]Run, len(capacities))
	errs := make([]error, len(capacities))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, c := range capacities {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			runs[i], errs[i] = Simulate(ctx, reqs, opts, c)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// Simulate replays reqs in arrival order into an embedded metadata-only
// pool of the given capacity with Mooncake eviction, and counts the holes
// every lookup finds.
func Simulate(ctx context.Context, reqs []Prepared, opts SimOptions, capacity int64) (Run, error) {
	clock := &virtualClock{}
	st, err := mem.New(mem.Options{
		Capacity: capacity, Segments: opts.Segments, MetadataOnly: true,
		LeaseTTL: opts.LeaseTTL, HighWatermark: opts.Watermark, EvictionRatio: opts.EvictionRatio,
		Eviction: mem.EvictManual, Now: clock.now,
	})
	if err != nil {
		return Run{}, fmt.Errorf("capacity %d: %w", capacity, err)
	}
	defer st.Close()
	sim := &simulator{opts: opts, st: st}
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return Run{}, err
		}
		clock.set(r.ArrivalMS)
		if err := sim.request(ctx, r); err != nil {
			return Run{}, fmt.Errorf("request %q: %w", r.ID, err)
		}
		if opts.Progress != nil && (i+1)%256 == 0 {
			opts.Progress(capacity, i+1)
		}
	}
	ps, err := st.Stat(ctx)
	if err != nil {
		return Run{}, err
	}
	return Run{CapacityBytes: capacity, Summary: sim.summary, FailedPuts: sim.failedPuts, Pool: ps}, nil
}

// virtualClock is the trace's clock: the arrival time of the request being
// replayed.
type virtualClock struct{ ms int64 }

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *virtualClock) set(ms int64)   { c.ms = ms }
func (c *virtualClock) now() time.Time { return epoch.Add(time.Duration(c.ms) * time.Millisecond) }
