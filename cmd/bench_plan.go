package cmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/sysmem"
	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/transfer"
)

// plan turns the flags and sweeps into the runs to make.
func (o *benchOptions) plan(dir transfer.Direction) ([]transfer.BenchOptions, error) {
	base, err := o.base(dir)
	if err != nil {
		return nil, err
	}
	runs := []transfer.BenchOptions{base}
	for _, sw := range o.Sweep {
		param, values, ok := strings.Cut(sw, "=")
		if !ok || values == "" {
			return nil, usagef("--sweep %q: want PARAM=V1,V2,...", sw)
		}
		var next []transfer.BenchOptions
		for _, r := range runs {
			for _, v := range strings.Split(values, ",") {
				nr := r
				if err := o.set(&nr, param, strings.TrimSpace(v)); err != nil {
					return nil, asUsage(fmt.Errorf("--sweep %s: %w", param, err))
				}
				next = append(next, nr)
			}
		}
		runs = next
	}
	for i := range runs {
		if err := o.fillPages(&runs[i]); err != nil {
			return nil, err
		}
		if runs[i].Async && runs[i].CallPages > 0 {
			return nil, usagef("--call-pages applies to synchronous loads and saves, not with --async-load")
		}
		if runs[i].Workers > maxBenchWorkers {
			return nil, usagef("--async-load-workers %d is outside 1..%d", runs[i].Workers, maxBenchWorkers)
		}
		if runs[i].Direct && o.Pool.URL != "" && !strings.HasPrefix(o.Pool.URL, "mem:") {
			return nil, usagef("direct transfers need the embedded mem:// pool (its arenas are registered with the driver)")
		}
	}
	return runs, nil
}

func (o *benchOptions) base(dir transfer.Direction) (transfer.BenchOptions, error) {
	r := o.run
	r.Direction = dir
	if dir == transfer.DirectionSave {
		r.Workers = transfer.DefaultWorkers // bench save has no loader
	}
	if r.Batch <= 0 || r.RegionsPerPage <= 0 || r.Workers <= 0 || r.Pages < 0 || r.Warmups < 0 || r.Parallel < 0 || r.CallPages < 0 {
		return r, usagef("--transfer-batch-size, --regions-per-page and --async-load-workers must be positive, --pages, --warmup, --copy-threads and --call-pages not negative")
	}
	if r.Warmups > maxBenchWarmups {
		return r, usagef("--warmup %d is outside 0..%d", r.Warmups, maxBenchWarmups)
	}
	if r.Repeats < 1 || r.Repeats > maxBenchRepeats {
		return r, usagef("--repeat %d is outside 1..%d", r.Repeats, maxBenchRepeats)
	}
	var err error
	if r.PageBytes, err = positiveSize("--page-bytes", o.PageBytes); err != nil {
		return r, err
	}
	if r.StagingBytes, err = positiveSize("--staging-bytes", o.StagingBytes); err == nil {
		err = fitsHostMemory("--staging-bytes", r.StagingBytes)
	}
	if err != nil {
		return r, err
	}
	if r.Mode, err = cuda.ParseCopyMode(o.Copy); err != nil {
		return r, asUsage(fmt.Errorf("--copy: %w", err))
	}
	return r, nil
}

// sweepParams lists the parameters --sweep takes in a direction, by the
// names of their flags.
func sweepParams(dir transfer.Direction) string {
	if dir == transfer.DirectionLoad {
		return "page-bytes, regions-per-page, copy, transfer-batch-size, call-pages, async-load-workers, copy-threads or direct"
	}
	return "page-bytes, regions-per-page, copy, transfer-batch-size, call-pages, copy-threads or direct"
}

// oldSweepParams are the old names of swept parameters, still taken.
var oldSweepParams = map[string]string{"batch": "transfer-batch-size", "workers": "async-load-workers"}

// set applies one swept parameter.
func (o *benchOptions) set(r *transfer.BenchOptions, param, v string) error {
	if current, ok := oldSweepParams[param]; ok {
		param = current
	}
	var err error
	switch {
	case param == "page-bytes":
		r.PageBytes, err = positiveSize("page-bytes", v)
	case param == "copy":
		r.Mode, err = cuda.ParseCopyMode(v)
	case param == "regions-per-page":
		r.RegionsPerPage, err = positiveInt(v)
	case param == "async-load-workers" && r.Direction == transfer.DirectionLoad:
		r.Workers, err = positiveInt(v)
	case param == "transfer-batch-size":
		r.Batch, err = positiveInt(v)
	case param == "call-pages":
		r.CallPages, err = positiveInt(v)
	case param == "direct":
		r.Direct, err = strconv.ParseBool(v)
	case param == "copy-threads":
		r.Parallel, err = positiveInt(v)
	default:
		err = fmt.Errorf("unknown parameter (want %s)", sweepParams(r.Direction))
	}
	return err
}

// The most load workers, untimed warm-up runs and timed runs a bench
// takes: each worker is started up front, and every run moves all the
// bytes.
const (
	maxBenchWorkers = 1024
	maxBenchWarmups = 100
	maxBenchRepeats = 100
)

// fillPages sets the page count from --pages or --bytes.
func (o *benchOptions) fillPages(r *transfer.BenchOptions) error {
	if r.PageBytes%int64(r.RegionsPerPage) != 0 {
		return usagef("page size %d is not a multiple of %d regions", r.PageBytes, r.RegionsPerPage)
	}
	if r.Pages > 0 {
		if most := math.MaxInt64 / r.PageBytes; int64(r.Pages) > most {
			return usagef("--pages %d of %d bytes each is outside 1..%d", r.Pages, r.PageBytes, most)
		}
		return fitsHostMemory("--pages (the values of the pages to move)", int64(r.Pages)*r.PageBytes)
	}
	total, err := positiveSize("--bytes", o.Bytes)
	if err != nil {
		return err
	}
	r.Pages = int(max(1, total/r.PageBytes))
	return fitsHostMemory("--bytes (the values of the pages to move)", int64(r.Pages)*r.PageBytes)
}

// fitsHostMemory refuses a run whose pages need more host memory than the
// machine has (their values live in the pool and in the run's own
// buffers), before anything is allocated.
func fitsHostMemory(what string, need int64) error {
	if sysmem.Fits(need) {
		return nil
	}
	return usagef("%s asks for %s of host memory; this machine has %s", what, size.Human(need), size.Human(sysmem.Total()))
}
