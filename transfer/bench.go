package transfer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// Direction is a benchmark's direction: stats.Op, whose Phases are the
// phases of the direction in order.
type Direction = stats.Op

// The directions.
const (
	DirectionLoad = stats.OpLoad // pool -> GPU
	DirectionSave = stats.OpSave // GPU -> pool
)

// Defaults of BenchOptions.
const (
	// DefaultBenchPageBytes is the bench's bytes_per_page: 64 KiB.
	DefaultBenchPageBytes = 64 << 10
	// DefaultBenchRegionsPerPage is the bench's regions per page: 2, K and V.
	DefaultBenchRegionsPerPage = 2
	// DefaultBenchPages is the number of pages a bench moves: 1024.
	DefaultBenchPages = 1024
	// DefaultBenchRequestPages is the pages of one request: 32.
	DefaultBenchRequestPages = 32
)

// BenchOptions configure Bench. Zero fields take the defaults noted.
type BenchOptions struct {
	// Options are the loader's or saver's (Device and Pool are required):
	// Bench runs them as they are, but for Pools and Stats, which it makes.
	Options
	// Direction is load (pool -> GPU) or save (GPU -> pool).
	Direction Direction
	// PageBytes is bytes_per_page (default DefaultBenchPageBytes), split
	// into RegionsPerPage equal regions (default
	// DefaultBenchRegionsPerPage).
	PageBytes      int64
	RegionsPerPage int
	// Pages is the number of pages moved (default DefaultBenchPages), in
	// requests of RequestPages pages (default DefaultBenchRequestPages).
	Pages        int
	RequestPages int
	// CallPages cuts the transfer into Load or SaveAll calls of that many
	// pages, made one after the other, each waiting for its copies, as a
	// connector's passes do (0: one call of every page). Not with Async.
	CallPages int
	// Async loads through an AsyncLoader of Options.Workers workers (loads
	// only).
	Async bool
	// Verify checks every moved page's xxh3-128 against the bytes it was
	// made from.
	Verify bool
	// KeyPrefix starts every page key (default "kvctl-bench"); Seed varies
	// the page bytes.
	KeyPrefix string
	Seed      uint64
	// Warmups is the untimed runs of the same transfer, with the same
	// loader or saver, before the timed one (none by default): they take
	// the process's one-time costs out of the figure, as a long-running
	// server has paid them. Saves remove the keys again after each.
	Warmups int
	// Repeats is the timed transfers of the same pages with the same
	// loader or saver (default 1): the result is the median one's, and
	// lists every one's time. One transfer of a GiB on a shared virtual
	// machine moved by up to 0.15 of the link from run to run.
	Repeats int
	// RemoveKeys removes the run's page keys from the pool when it ends,
	// so that a shared pool keeps nothing of the run.
	RemoveKeys bool
}

// BenchResult is one benchmark run's outcome.
type BenchResult struct {
	Direction Direction `json:"direction"`
	Device    string    `json:"device"`
	Mode      string    `json:"copy"`
	Direct    bool      `json:"direct"`
	Async     bool      `json:"async"`
	Workers   int       `json:"workers,omitempty"`
	// Parallel is the most concurrent store calls per batch (per worker
	// for async runs).
	Parallel       int   `json:"parallel,omitempty"`
	PageBytes      int64 `json:"page_bytes"`
	RegionsPerPage int   `json:"regions_per_page"`
	RegionBytes    int64 `json:"region_bytes"`
	Pages          int   `json:"pages"`
	Bytes          int64 `json:"bytes"`
	// CallPages and Calls are the pages of each Load or SaveAll call and
	// how many calls a transfer made, when it was cut into calls
	// (BenchOptions.CallPages).
	CallPages int      `json:"call_pages,omitempty"`
	Calls     int      `json:"calls,omitempty"`
	Warmups   int      `json:"warmups"`
	Geometry  Geometry `json:"geometry"`
	// Repeats is how many timed transfers ran. Seconds is the median's
	// wall time (of an even count, the faster of the middle two), and the
	// rate, the ratio, the phases and the device time are that transfer's;
	// GBps is its rate in 10^9 bytes/s.
	Repeats int     `json:"repeats"`
	Seconds float64 `json:"seconds"`
	GBps    float64 `json:"gb_per_s"`
	// Baseline is one contiguous pinned copy of the same bytes in the same
	// direction on the same device (the best of two).
	BaselineSeconds float64 `json:"baseline_seconds"`
	BaselineGBps    float64 `json:"baseline_gb_per_s"`
	// Ratio is GBps / BaselineGBps.
	Ratio float64 `json:"ratio_to_baseline"`
	// RunSeconds is every timed transfer's wall time, in order, and
	// RatioMin and RatioMax the slowest's and the fastest's ratio to the
	// baseline (when more than one ran).
	RunSeconds []float64 `json:"run_seconds,omitempty"`
	RatioMin   float64   `json:"ratio_min,omitempty"`
	RatioMax   float64   `json:"ratio_max,omitempty"`
	// PhaseMS is the wall time per phase, summed over workers; PhaseCPUMS
	// the CPU time of the threads that ran them (see Totals: the device
	// copies overlap get and put, and sync is only the time spent waiting
	// for the device).
	PhaseMS    map[string]float64 `json:"phases_ms"`
	PhaseCPUMS map[string]float64 `json:"phases_cpu_ms"`
	// DeviceMS is the device's time for the unstage or stage copies,
	// measured with events (Totals.DeviceCopy), and CopyGBps the rate
	// it gives: how fast the copy mode moves bytes once they are staged.
	// CopyGBps is zero for async runs, whose workers' copies overlap.
	DeviceMS   float64 `json:"device_ms,omitempty"`
	CopyGBps   float64 `json:"copy_gb_per_s"`
	StoreCalls int64   `json:"store_calls"`
	// HelpersBusy is the share of the transfer's wall time that the crew's
	// helpers (Parallel-1 threads, per worker) spent in store calls, by
	// their CPU time (Totals.Helpers): near 1 when the copies into or out
	// of the pool keep every thread busy, lower when the threads wait for
	// the next set or lose their cores. Zero where thread CPU time is not
	// measured (not Linux) or there are no helpers.
	HelpersBusy float64 `json:"helpers_busy,omitempty"`
	// OthersBusyCores is how many cores other programs kept busy on
	// average during the run (filling the pool, the warm-ups, the timed
	// transfers and the baseline: the machine's CPU time less kvctl's,
	// internal/hostload), to the hundredth, and StealCores how many
	// cores' worth of time the hypervisor gave to others; both absent
	// where the machine does not say (no /proc/stat), for runs under a
	// quarter of a second, and where the machine's tick counts cannot tell
	// within a quarter of a core (runs under 0.64 s on 16 cores). A
	// transfer whose crew has a thread on most cores
	// moves less beside other work: figures to compare want others near 0.
	OthersBusyCores *float64 `json:"others_busy_cores,omitempty"`
	StealCores      *float64 `json:"steal_cores,omitempty"`
	// Missing (loads) and Failed (saves) count pages that did not move.
	Missing int `json:"missing"`
	Failed  int `json:"failed"`
	// Verify is "ok", "skipped", or what differed.
	Verify string `json:"verify"`
	// PoolTransport is what the pool client's transfer engine does, for
	// a pool that says (pool.TransportReporter, a mooncake-store://
	// pool); StagingRegistered says the staging was registered with the
	// pool (pool.BufferRegistrar), so that its calls move values straight
	// into and out of it.
	PoolTransport     *pool.Transport `json:"pool_transport,omitempty"`
	StagingRegistered bool            `json:"staging_registered,omitempty"`
}

// ErrVerifyFailed is wrapped by Bench's error when verification failed
// (the result is still returned); commands map it to exit code 3.
var ErrVerifyFailed = errors.New("verification failed")

func (o BenchOptions) withDefaults() (BenchOptions, error) {
	o.PageBytes = cmp.Or(o.PageBytes, DefaultBenchPageBytes)
	o.RegionsPerPage = cmp.Or(o.RegionsPerPage, DefaultBenchRegionsPerPage)
	o.Pages = cmp.Or(o.Pages, DefaultBenchPages)
	o.RequestPages = cmp.Or(o.RequestPages, DefaultBenchRequestPages)
	o.KeyPrefix = cmp.Or(o.KeyPrefix, "kvctl-bench")
	o.Direction = cmp.Or(o.Direction, DirectionLoad)
	o.Mode = cmp.Or(o.Mode, cuda.ModeMemcpy)
	o.Repeats = cmp.Or(o.Repeats, 1)
	switch {
	case o.Device == nil || o.Pool == nil:
		return o, errors.New("bench: a device and a pool are required")
	case o.Direction != DirectionLoad && o.Direction != DirectionSave:
		return o, fmt.Errorf("bench: direction %q: want load or save", o.Direction)
	case o.Direction == DirectionSave && o.Async:
		return o, errors.New("bench: async applies to loads only")
	case o.Async && o.CallPages > 0:
		return o, errors.New("bench: calls of a number of pages apply to synchronous loads and saves (an async loader takes each request as it comes)")
	case o.PageBytes < 0 || o.RegionsPerPage < 0 || o.Pages < 0 || o.RequestPages < 0 || o.CallPages < 0 || o.Warmups < 0 || o.Repeats < 0:
		return o, errors.New("bench: sizes and counts must be positive")
	}
	return o, nil
}

// Bench runs one benchmark: it allocates the GPU pages, makes
// deterministic page bytes (seeding the pool for a load, filling the GPU
// pages for a save, after putting and removing the keys once so that an
// in-process pool's memory is touched), times the transfer (one Load, or
// one SaveAll, of every request, or calls of CallPages pages one after
// the other), verifies it when asked, then times the
// contiguous baseline, and with RemoveKeys removes the page keys. A verification failure returns the result and an
// error wrapping ErrVerifyFailed.
func Bench(ctx context.Context, o BenchOptions) (BenchResult, error) {
	o, err := o.withDefaults()
	if err != nil {
		return BenchResult{}, err
	}
	layout, err := UniformLayout(1, o.RegionsPerPage, o.PageBytes)
	if err != nil {
		return BenchResult{}, fmt.Errorf("bench: %w", err)
	}
	pools, err := NewPagePools(o.Device, layout, o.Pages)
	if err != nil {
		return BenchResult{}, fmt.Errorf("bench: %w", err)
	}
	defer ClosePagePools(pools)
	r := newBenchResult(o)
	b := &benchRun{o: o, pools: pools, stats: &Stats{}, res: &r}
	err = b.run(ctx)
	if o.RemoveKeys {
		err = errors.Join(err, b.removeKeys(ctx))
	}
	if err != nil {
		return r, err
	}
	if r.Verify != "ok" && r.Verify != "skipped" {
		return r, fmt.Errorf("bench %s: %w: %s", o.Direction, ErrVerifyFailed, r.Verify)
	}
	return r, nil
}

func newBenchResult(o BenchOptions) BenchResult {
	r := BenchResult{
		Direction: o.Direction, Device: o.Device.Info().Name, Mode: string(o.Mode),
		Direct: o.Direct, Async: o.Async, PageBytes: o.PageBytes,
		RegionsPerPage: o.RegionsPerPage, RegionBytes: o.PageBytes / int64(o.RegionsPerPage),
		Pages: o.Pages, Bytes: o.PageBytes * int64(o.Pages), Warmups: o.Warmups, Repeats: o.Repeats, Verify: "skipped",
	}
	if o.CallPages > 0 {
		r.CallPages, r.Calls = o.CallPages, (o.Pages+o.CallPages-1)/o.CallPages
	}
	workers := 1
	if o.Async {
		r.Workers = cmp.Or(o.Workers, DefaultWorkers)
		workers = r.Workers
	}
	r.Parallel = Options{Parallel: o.Parallel, Direct: o.Direct}.parallelFor(workers, o.Direction == DirectionSave)
	if t, ok := o.Pool.(pool.TransportReporter); ok {
		tr := t.Transport()
		r.PoolTransport = &tr
	}
	_, registers := o.Pool.(pool.BufferRegistrar)
	r.StagingRegistered = registers && !o.Direct
	return r
}

// benchRun is the state of one Bench call.
type benchRun struct {
	o     BenchOptions
	pools []*PagePool
	stats *Stats
	res   *BenchResult
}

// options are the loader's or saver's: the bench's, with its pages and
// statistics.
func (b *benchRun) options() Options {
	o := b.o.Options
	o.Pools, o.Stats = b.pools, b.stats
	return o
}

func (b *benchRun) run(ctx context.Context) error {
	host := startHostWindow()
	defer host.end(b.res)
	var runs []timedRun
	var err error
	if b.o.Direction == DirectionLoad {
		runs, err = b.load(ctx)
	} else {
		runs, err = b.save(ctx)
	}
	if err != nil {
		return err
	}
	b.takeMedian(runs)
	if err := b.baseline(); err != nil {
		return err
	}
	b.res.BaselineGBps = gbps(b.res.Bytes, b.res.BaselineSeconds)
	if b.res.BaselineGBps > 0 {
		b.res.Ratio = b.res.GBps / b.res.BaselineGBps
		if len(b.res.RunSeconds) > 1 {
			b.res.RatioMin = gbps(b.res.Bytes, slices.Max(b.res.RunSeconds)) / b.res.BaselineGBps
			b.res.RatioMax = gbps(b.res.Bytes, slices.Min(b.res.RunSeconds)) / b.res.BaselineGBps
		}
	}
	return nil
}
