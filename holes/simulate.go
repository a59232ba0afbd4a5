package holes

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/replay"
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
	// OpenPool opens the empty pool of capacity bytes that one simulated
	// capacity replays into (required), with the simulated master's
	// settings (eviction_ratio, eviction_high_watermark_ratio, lease TTL).
	// Its leases and eviction must run on the clock now (the arrival time
	// of the request being replayed), it must accept puts of sizes without
	// values (metadata-only), and it must be a pool.LeasingExister and a
	// pool.Evicter in manual eviction mode: the simulator runs the
	// eviction step on the trace's clock every replay.EvictionInterval
	// (10 ms), as the master's eviction thread does, so puts between two
	// ticks can fail for want of room. kvctl opens pool/mem in
	// metadata-only mode.
	OpenPool func(capacity int64, now func() time.Time) (pool.Store, error)
	// PutBatch is the pages per put call, the connector's
	// transfer_batch_size (default DefaultPutBatch).
	PutBatch int
	// Progress, when set, is called as requests are replayed with the
	// capacity of the run and the number of requests done in it.
	Progress func(capacity int64, done int)
	// KeepMaps keeps each request's lookup, its block map included, in
	// Run.Requests (for a hole map).
	KeepMaps bool
	// KeyBytes is the size of every key's value when Keys is an engine
	// other than TensorRT-LLM (whose page sizes are its layer groups'):
	// required for those.
	KeyBytes int64
}

// DefaultPutBatch is the connector's default transfer_batch_size.
const DefaultPutBatch = 64

// Prepared is a request reduced to what the simulation needs: its arrival
// time, prompt length and full blocks' hashes: TensorRT-LLM's in Hashes,
// another engine's (EngineBlock.Hash) in Blocks.
type Prepared struct {
	ID           string
	ArrivalMS    int64
	PromptTokens int
	Hashes       []keys.Hash
	Blocks       []string
}

// numBlocks is the number of the request's full blocks.
func (r Prepared) numBlocks() int { return len(r.Hashes) + len(r.Blocks) }

// appendKeys appends the pool keys of r's blocks under s, block by block
// and s.KeysPerBlock() a block, as the engine's connector writes and looks
// them up.
func (r Prepared) appendKeys(dst []string, s keys.Settings) []string {
	for _, h := range r.Hashes {
		dst = s.AppendBlockKeys(dst, h)
	}
	for _, h := range r.Blocks {
		dst = s.AppendLookupBlockKeys(dst, keys.EngineBlock{Hash: h})
	}
	return dst
}

// Run is one simulated capacity.
type Run struct {
	CapacityBytes int64       `json:"capacity_bytes"`
	Summary       stats.Holes `json:"summary"`
	// FailedPuts counts pages whose put failed (no room: the pool filled
	// since the last eviction tick, or eviction could not make room).
	FailedPuts int64     `json:"failed_puts"`
	Pool       pool.Stat `json:"pool"`
	// After is what a read-only probe of the pool as the replay left it
	// reports for the same requests (`kvctl holes --pool` run after the
	// trace, once the master's eviction thread has run its next tick; Pool
	// is the pool before that tick): chains torn by eviction that no later lookup met show
	// here. Absent when the run was interrupted.
	After *stats.Holes `json:"pool_after,omitempty"`
	// Interrupted says ctx ended the run: it covers the requests replayed
	// before it did.
	Interrupted bool `json:"interrupted,omitempty"`
	// Requests are each request's lookup, in replay order, with
	// SimOptions.KeepMaps.
	Requests []stats.RequestHoles `json:"requests,omitempty"`
}

// Prepare hashes every request of src once, so several capacities can be
// simulated from the same chains: TensorRT-LLM's, or the full blocks of
// another engine (keys.Settings.EngineBlocks), whose pool must have keys.
func Prepare(ctx context.Context, src workload.Source, s keys.Settings) ([]Prepared, error) {
	if !keys.EngineHasKeys(s.Engine) {
		return nil, fmt.Errorf("%s keeps no pool: its blocks have no keys to replay", s.Engine)
	}
	var out []Prepared
	err := src.Each(func(req workload.Request) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := prepare(s, req)
		if err != nil {
			return fmt.Errorf("request %q: %w", req.ID, err)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// prepare hashes one request under s.
func prepare(s keys.Settings, req workload.Request) (Prepared, error) {
	p := Prepared{ID: req.ID, ArrivalMS: req.ArrivalMS, PromptTokens: len(req.Tokens)}
	var err error
	if s.IsTRTLLM() {
		p.Hashes, err = s.Hashes(req.Scope(), req.Tokens)
		return p, err
	}
	blocks, err := s.EngineBlocks(req.Scope(), req.Tokens)
	for _, b := range blocks {
		if b.End-b.Start == s.BlockTokens() {
			p.Blocks = append(p.Blocks, b.Hash)
		}
	}
	return p, err
}

// Sweep simulates every capacity, in parallel over the cores, and returns
// the runs in the order of capacities. When ctx ends it, the runs so far
// come back, marked Interrupted, with ctx's error.
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
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	return runs, errors.Join(errs...)
}

// Simulate replays reqs in arrival order into an embedded metadata-only
// pool of the given capacity (opts.OpenPool) with Mooncake eviction, and
// counts the holes every lookup finds. Every request's calls run at its
// arrival time; the eviction ticks that the clock passes between two
// arrivals run at their own instants (replay.Clock). When ctx ends it, the
// run so far comes back, marked Interrupted, with ctx's error.
func Simulate(ctx context.Context, reqs []Prepared, opts SimOptions, capacity int64) (Run, error) {
	if opts.OpenPool == nil {
		return Run{}, errors.New("simulating: no pool to simulate (SimOptions.OpenPool is nil)")
	}
	if !opts.Keys.IsTRTLLM() && opts.KeyBytes <= 0 {
		return Run{}, fmt.Errorf("simulating %s: no size for its keys' values (SimOptions.KeyBytes)", opts.Keys.Engine)
	}
	clock := replay.NewClock()
	st, err := opts.OpenPool(capacity, clock.Now)
	if err != nil {
		return Run{}, fmt.Errorf("capacity %d: %w", capacity, err)
	}
	defer st.Close()
	sim, err := newSimulator(opts, st)
	if err != nil {
		return Run{}, fmt.Errorf("capacity %d: %w", capacity, err)
	}
	clock.OnTick(sim.evict.EvictNow)
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return sim.interrupted(ctx, capacity, st, err)
		}
		clock.AdvanceTo(arrival(r.ArrivalMS))
		if err := sim.request(ctx, r); err != nil {
			if errors.Is(err, context.Canceled) {
				return sim.interrupted(ctx, capacity, st, err)
			}
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
	// The master's eviction thread runs once more before anyone could
	// probe the pool the replay left.
	clock.Advance(replay.EvictionInterval)
	after, err := probeAfter(ctx, st, reqs, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return sim.interrupted(ctx, capacity, st, err)
		}
		return Run{}, err
	}
	return Run{CapacityBytes: capacity, Summary: sim.summary, FailedPuts: sim.failedPuts, Pool: ps, After: &after, Requests: sim.requests}, nil
}

// interrupted is the run so far when ctx ended it with err, the pool's
// statistics read without ctx.
func (s *simulator) interrupted(ctx context.Context, capacity int64, st pool.Store, err error) (Run, error) {
	ps, serr := st.Stat(context.WithoutCancel(ctx))
	if serr != nil {
		return Run{}, errors.Join(err, serr)
	}
	return Run{CapacityBytes: capacity, Summary: s.summary, FailedPuts: s.failedPuts, Pool: ps, Interrupted: true, Requests: s.requests}, err
}

// arrival is the instant on the virtual clock of an arrival time in ms.
func arrival(ms int64) time.Time { return replay.Epoch.Add(time.Duration(ms) * time.Millisecond) }
