package sensitivity

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/internal/sysmem"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/workload"
)

// Options configure Sweep.
type Options struct {
	// Config is the replay's configuration with the modelled layout;
	// Sweep runs it with the proxy layout (Scale) on a fresh clock, pool
	// and Tracker per capacity. Its MemoryLimit, when positive, is each
	// run's share: the sweep sets the process's limit once, for the runs
	// it holds at a time.
	Config engine.Config
	// OpenPool opens an empty pool of capacity bytes (the proxy pool's)
	// whose leases and eviction run on clock and whose eviction step the
	// engine drives (required).
	OpenPool func(capacity int64, clock *engine.Clock) (pool.Store, error)
	// Source returns the workload, afresh for each run (required): runs
	// go in parallel, and a source may reuse its buffers.
	Source func() (workload.Source, error)
	// WindowMS and RecentMS are the Tracker's window and recency horizon
	// in modelled milliseconds.
	WindowMS, RecentMS float64
	// Criteria mark the bursts.
	Criteria Criteria
	// Progress, when set, is called as a run goes with its modelled
	// capacity and its progress.
	Progress func(capacity int64, p engine.Progress)
}

// Run is one capacity of a sweep.
type Run struct {
	// CapacityBytes is the modelled pool's capacity, CapacityBlocks the
	// whole blocks it holds and PoolBytes the proxy pool's capacity.
	CapacityBytes  int64 `json:"capacity_bytes"`
	CapacityBlocks int64 `json:"capacity_blocks"`
	PoolBytes      int64 `json:"pool_bytes"`
	// HitRate, Holes (met by lookups), StrandedBlocks (stored behind a
	// hole), EvictedKeys and TTFTMS repeat Report's headline figures.
	HitRate        float64            `json:"hit_rate"`
	Holes          int64              `json:"holes"`
	StrandedBlocks int64              `json:"stranded_blocks"`
	EvictedKeys    int64              `json:"evicted_keys"`
	TTFTMS         engine.Percentiles `json:"ttft_ms"`
	// RecentMisses, TornMisses and WholeMisses add up the windows'.
	RecentMisses int64    `json:"recent_misses"`
	TornMisses   int64    `json:"torn_misses"`
	WholeMisses  int64    `json:"whole_misses"`
	Bursts       []Burst  `json:"bursts"`
	Windows      []Window `json:"windows"`
	// Report is the replay's whole report (kvctl serve -o json).
	Report engine.Report `json:"report"`
}

// Sweep replays the workload once per modelled capacity, up to
// Parallelism runs at a time, and returns the runs in the order of
// capacities. When ctx ends it, the runs so far come back (a run cut
// short is marked Report.Interrupted) with ctx's error.
func Sweep(ctx context.Context, opts Options, capacities []int64) ([]Run, error) {
	scale := NewScale(opts.Config.Keys.Layout)
	n := Parallelism(opts, scale, capacities)
	if limit := opts.Config.MemoryLimit; limit > 0 {
		defer engine.HoldMemory(limit * int64(n))()
	}
	runs := make([]Run, len(capacities))
	errs := make([]error, len(capacities))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, c := range capacities {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			runs[i], errs[i] = replay(ctx, opts, scale, c)
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

// replay runs one modelled capacity.
func replay(ctx context.Context, opts Options, scale Scale, capacity int64) (Run, error) {
	cfg := opts.Config
	scale.Apply(&cfg)
	cfg.Clock, cfg.MemoryLimit = engine.NewClock(), 0
	run := Run{CapacityBytes: capacity, CapacityBlocks: scale.Blocks(capacity), PoolBytes: scale.PoolBytes(capacity)}
	st, err := opts.OpenPool(run.PoolBytes, cfg.Clock)
	if err != nil {
		return run, fmt.Errorf("capacity %d: %w", capacity, err)
	}
	defer st.Close()
	src, err := opts.Source()
	if err != nil {
		return run, err
	}
	tr := NewTracker(opts.WindowMS, opts.RecentMS, func() (int64, error) {
		s, err := st.Stat(ctx)
		return s.EvictedKeys, err
	})
	cfg.Pool, cfg.Observer = st, tr
	var progress func(engine.Progress)
	if opts.Progress != nil {
		progress = func(p engine.Progress) { opts.Progress(capacity, p) }
	}
	rep, err := engine.Run(ctx, cfg, src, progress)
	run.Report = rep
	if err != nil && !rep.Interrupted {
		return run, fmt.Errorf("capacity %d: %w", capacity, err)
	}
	windows, werr := tr.Windows()
	if err != nil { // interrupted: the windows so far, as far as the pool told
		run.Windows = windows
		run.summarize(opts)
		return run, fmt.Errorf("capacity %d: %w", capacity, err)
	}
	if werr != nil {
		return run, fmt.Errorf("capacity %d: reading the pool's evictions: %w", capacity, werr)
	}
	run.Windows = windows
	run.summarize(opts)
	return run, nil
}

// summarize fills the headline figures and the bursts from the report
// and the windows.
func (r *Run) summarize(opts Options) {
	rep := r.Report
	r.HitRate, r.TTFTMS, r.EvictedKeys = rep.HitRate, rep.TTFTMS, rep.Pool.EvictedKeys
	r.Holes, r.StrandedBlocks = rep.PrefixHoles.Holes, rep.PrefixHoles.BehindHoleBlocks
	for _, w := range r.Windows {
		r.RecentMisses += w.RecentMisses
		r.TornMisses += w.TornMisses
		r.WholeMisses += w.WholeMisses
	}
	r.Bursts = DetectBursts(r.Windows, opts.WindowMS, opts.Criteria)
	if r.Bursts == nil {
		r.Bursts = []Burst{} // JSON: none, not null
	}
}

// runOverheadBytes is what a run holds beside its pool: the engine, its
// GPU pages' bookkeeping, the tracker and the runtime (measured: a
// replay of 3,000 conversation requests with a pool sized never to evict
// peaks at about 0.5 GiB resident, 0.1 GiB of it pages).
const runOverheadBytes = 256 << 20

// indexBytesPerPage is the embedded pool's key and index per stored
// page (engine.DefaultPageBytes's note: about 250 bytes), rounded up.
const indexBytesPerPage = 400

// Parallelism is how many runs of a sweep go at a time: one per core, at
// most one per capacity, and no more than half the machine's memory holds
// (each run's estimate: its largest proxy pool with its index, its GPU
// pages and runOverheadBytes); at least one.
func Parallelism(opts Options, scale Scale, capacities []int64) int {
	n := min(runtime.GOMAXPROCS(0), len(capacities))
	var most int64
	for _, c := range capacities {
		most = max(most, scale.PoolBytes(c))
	}
	pages := most / max(1, ProxyPageBytes)
	gpu := int64(max(opts.Config.GPU.Blocks, engine.DefaultGPUBlocks)) * scale.ProxyBlockBytes
	per := most + pages*indexBytesPerPage + gpu + runOverheadBytes
	if total := sysmem.Total(); total > 0 {
		n = min(n, int(total/2/per))
	}
	return max(1, n)
}
