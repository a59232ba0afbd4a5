package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/kvctl/kvctl/chart"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/transfer"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// benchOptions are bench's flags. Those transfer.BenchOptions can hold
// are bound to run's fields; sizes, the copy mode, the device, the pool and
// the sweeps are strings that plan parses into the runs.
type benchOptions struct {
	run          transfer.BenchOptions
	Device       string
	Pool         poolFlag
	PageBytes    string
	Bytes        string
	StagingBytes string
	Copy         string
	Sweep        []string
	// Keep leaves the run's keys in a pool named with --pool.
	Keep bool
	Plot plotFlag
}

func newBenchCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark GPU<->pool page transfers",
		Long: `Benchmark page transfers between GPU memory and a pool, through pinned host
staging as TensorRT-LLM's Mooncake-store connector moves them, on a real GPU
through the CUDA driver or with host emulation where there is none.

Each run also measures, on the same device in the same process, one contiguous
pinned copy of the same bytes in the same direction: the baseline the figure is
held against. Phases and how to read the results: docs/bench.md.`,
	}
	c.AddCommand(newBenchDirCmd(ios, g, transfer.DirectionLoad), newBenchDirCmd(ios, g, transfer.DirectionSave))
	return c
}

func newBenchDirCmd(ios *IOStreams, g *globalOptions, dir transfer.Direction) *cobra.Command {
	o := &benchOptions{}
	what := map[transfer.Direction]string{
		transfer.DirectionLoad: "Load pages pool -> pinned staging -> GPU and time each phase",
		transfer.DirectionSave: "Save pages GPU -> pinned staging -> pool and time each phase",
	}[dir]
	c := &cobra.Command{
		Use:   string(dir) + " [flags]",
		Short: what,
		Long: what + `.

--device auto uses the first CUDA GPU, or host emulation when there is none (and
says so on stderr); --device cuda (or cuda:N) insists on a GPU. --copy picks how
staged pages reach GPU pages: memcpy (one async copy per region, as the
connector does), kernel (a gather/scatter kernel over mapped pinned memory) or
batch (cuMemcpyBatchAsync, CUDA 12.8+). --direct registers the embedded pool's
arenas with the driver and copies without staging: loads read values in place,
saves reserve their values in the arenas, gather the pages straight into them
and publish them once the copies finished. Staged, pages move in sets of 8 MiB (loads) or 16 MiB (saves):
--copy-threads threads run a set's store calls (at most --transfer-batch-size
pages each), which copy between the pool and the set's pinned staging buffer,
while the device moves the previous set. --sweep PARAM=V1,V2 (` + sweepParams(dir) + `;
repeatable: the runs are the cross product) runs several configurations. Each run first makes --warmup
untimed transfers of the same pages with the same loader or saver (1 by
default), so that one-time costs of the process stay out of the figure; the
GPU pages are zeroed (loads) or the keys removed (saves) before the timed
transfer. --repeat N times N transfers, so reset before each, and reports the
median one with the range of the ratio to the baseline: one transfer on a
shared machine can stray far from the next. A pool named with --pool (or $KVCTL_POOL) keeps none of the run's keys
(kvctl-bench/PAGE_BYTES/SEED/N) once it ends, unless --keep.

Exit codes: 3 when --verify finds a page that differs, 5 when --device cuda
finds no usable GPU or driver.`,
		Example: "$ kvctl bench " + string(dir) + " --copy kernel --page-bytes 64KiB --bytes 1GiB\n" +
			"$ kvctl bench " + string(dir) + " --device cuda --sweep page-bytes=4KiB,16KiB,64KiB,256KiB,1MiB --sweep copy=memcpy,kernel,batch -o json",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			if err := o.Plot.open(); err != nil {
				return err
			}
			defer o.Plot.discard()
			return runBench(c.Context(), ios, g, dir, o)
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.Device, "device", "auto", "device: auto, host, cuda or cuda:N")
	o.Pool.registerDefault(fs, "a fresh embedded mem:// pool sized for the run")
	fs.BoolVar(&o.Keep, "keep", false, "leave the run's keys in the --pool pool (removed by default)")
	fs.StringVar(&o.PageBytes, "page-bytes", size.Format(transfer.DefaultBenchPageBytes), "bytes per page (one layer group)")
	fs.IntVar(&o.run.RegionsPerPage, "regions-per-page", transfer.DefaultBenchRegionsPerPage, "regions per page (K and V: 2)")
	fs.IntVar(&o.run.Pages, "pages", 0, "pages to move (default: --bytes worth)")
	fs.StringVar(&o.Bytes, "bytes", "256MiB", "bytes to move, when --pages is not given (at most the machine's memory)")
	fs.IntVar(&o.run.CallPages, "call-pages", 0, "cut the transfer into calls of this many pages, one after the other, as a connector's passes make them (0: one call of every page)")
	fs.IntVar(&o.run.Batch, "transfer-batch-size", transfer.DefaultBatch, "transfer_batch_size: pages per store call")
	deprecatedAlias(fs, "batch", "transfer-batch-size")
	fs.StringVar(&o.StagingBytes, "staging-bytes", size.Format(transfer.DefaultStagingBytes), "staging_buffer_bytes: pinned staging per direction")
	if dir == transfer.DirectionLoad {
		o.registerAsyncLoad(fs)
	}
	fs.IntVar(&o.run.Parallel, "copy-threads", 0, "threads that run a set's store calls, and so the copies into or out of staging (0: the cores but one from five cores up for loads, but two from eight up for saves, three quarters of them with --direct; several async load workers split the cores, or three quarters of them, evenly; a number is each worker's)")
	fs.StringVar(&o.Copy, "copy", "memcpy", "copy mode: memcpy, kernel or batch")
	fs.BoolVar(&o.run.Direct, "direct", false, "copy straight between the GPU and the pool's registered arenas, no staging (mem:// only)")
	fs.StringArrayVar(&o.Sweep, "sweep", nil, "sweep a parameter, PARAM=V1,V2,... with PARAM one of "+sweepParams(dir)+", e.g. page-bytes=4KiB,64KiB (repeatable)")
	fs.BoolVar(&o.run.Verify, "verify", true, "check every page byte-identical after the transfer (xxh3-128)")
	o.Plot.register(fs, "GB/s against page size per copy mode and path, with the baseline,")
	fs.IntVar(&o.run.Warmups, "warmup", 1, fmt.Sprintf("untimed runs of the same transfer before the timed one, 0..%d (0: none)", maxBenchWarmups))
	fs.IntVar(&o.run.Repeats, "repeat", 1, fmt.Sprintf("timed runs of the same transfer, 1..%d: the figures are the median run's, with the range of the ratio", maxBenchRepeats))
	return c
}

// registerAsyncLoad registers the flags of bench load's asynchronous
// loader, named as serve names them (async_load, async_load_workers).
func (o *benchOptions) registerAsyncLoad(fs *pflag.FlagSet) {
	fs.BoolVar(&o.run.Async, "async-load", false, "async_load: load through the asynchronous loader")
	deprecatedAlias(fs, "async", "async-load")
	fs.IntVar(&o.run.Workers, "async-load-workers", transfer.DefaultWorkers, fmt.Sprintf("async_load_workers sharing one FIFO queue (with --async-load), 1..%d", maxBenchWorkers))
	deprecatedAlias(fs, "workers", "async-load-workers")
}

func runBench(ctx context.Context, ios *IOStreams, g *globalOptions, dir transfer.Direction, o *benchOptions) error {
	o.Pool.resolve(ios)
	runs, err := o.plan(dir)
	if err != nil {
		return err
	}
	dev, err := openDevice(ios, g, o.Device)
	if err != nil {
		return err
	}
	defer dev.Close()
	o.Pool.noteFromEnv(ios, g)
	bar := newProgress(ios, g, "bench", "runs", len(runs))
	var results []transfer.BenchResult
	for i, r := range runs {
		r.RemoveKeys = o.Pool.URL != "" && !o.Keep
		res, err := benchOnce(ctx, ios, dev, o.Pool.URL, r)
		bar.update(i+1, "")
		if err != nil {
			bar.finish()
			return benchInterrupted(ios, g, len(o.Sweep) > 0, results, len(runs), err)
		}
		results = append(results, res)
	}
	bar.finish()
	if err := printBench(ios, g, len(o.Sweep) > 0, results, false); err != nil {
		return err
	}
	return o.Plot.write(chart.BenchSweep(results))
}

// benchInterrupted ends a bench that failed with err after the runs in
// results: when Ctrl-C stopped it, it prints the runs finished, the report
// marked interrupted, and says how many of total ran; else it returns err.
func benchInterrupted(ios *IOStreams, g *globalOptions, sweep bool, results []transfer.BenchResult, total int, err error) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	if len(results) > 0 {
		_ = printBench(ios, g, sweep, results, true)
	}
	return interruptedAfterUnits(err, int64(len(results)), int64(total), "runs")
}

// benchOnce runs one configuration against a fresh embedded pool, or the
// pool the user named.
func benchOnce(ctx context.Context, ios *IOStreams, dev cuda.Device, poolURL string, r transfer.BenchOptions) (transfer.BenchResult, error) {
	url := poolURL
	if url == "" {
		capacity := max(64<<20, 2*r.PageBytes*int64(r.Pages))
		url = fmt.Sprintf("mem://?capacity=%s&segments=1&arena=%s", size.Format(capacity), size.Format(max(64<<20, r.PageBytes)))
	}
	st, err := pool.Open(ctx, url)
	if err != nil {
		return transfer.BenchResult{}, err
	}
	defer st.Close()
	r.Device, r.Pool = dev, st
	return transfer.Bench(ctx, r)
}
