package chart

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kvctl/kvctl/transfer"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// SeriesBaseline names the bench chart's reference line.
const SeriesBaseline = "contiguous pinned copy (baseline)"

// BenchSweep charts a bench sweep: GB/s against page size (log scale), one
// series per copy mode and path (and per thread count or regions per page
// where the sweep varies them), with the same runs' contiguous pinned
// baseline as a dashed line and each GB/s tick's ratio to the baseline's
// mean.
func BenchSweep(runs []transfer.BenchResult) (*Chart, error) {
	if len(runs) == 0 {
		return nil, errors.New("charting a bench sweep: no runs")
	}
	name := seriesNamer(runs)
	groups := map[string]plotter.XYs{}
	var order []string
	for _, r := range runs {
		n := name(r)
		if _, ok := groups[n]; !ok {
			order = append(order, n)
		}
		groups[n] = append(groups[n], plotter.XY{X: float64(r.PageBytes), Y: r.GBps})
	}
	dir := string(runs[0].Direction)
	p := newPlot(fmt.Sprintf("bench %s on %s: GB/s against page size", dir, runs[0].Device), "page size (log scale)", "GB/s (ratio to baseline)")
	for i, n := range order {
		pts := groups[n]
		slices.SortStableFunc(pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		if err := addSeries(p, i, n, pts); err != nil {
			return nil, err
		}
	}
	base, mean := baseline(runs)
	if err := addReference(p, SeriesBaseline, base); err != nil {
		return nil, err
	}
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, bytesTicks{}
	p.X.Min, p.X.Max = base[0].X, base[len(base)-1].X
	padLogRange(&p.X)
	p.Y.Min, p.Y.Tick.Marker = 0, ratioTicks{baseline: mean}
	p.Y.Max = max(p.Y.Max, mean) * 1.1
	c := &Chart{Title: p.Title.Text, panels: []*plot.Plot{p}, w: defaultWidth + 2*vg.Inch, h: defaultHeight}
	c.legendOutside(2.5 * vg.Inch)
	return c, nil
}

// baseline is the mean baseline GB/s at each page size, in order of page
// size, and the mean over every run.
func baseline(runs []transfer.BenchResult) (plotter.XYs, float64) {
	sum, n := map[int64]float64{}, map[int64]int{}
	var total float64
	for _, r := range runs {
		sum[r.PageBytes] += r.BaselineGBps
		n[r.PageBytes]++
		total += r.BaselineGBps
	}
	var pts plotter.XYs
	for _, pb := range slices.Sorted(maps.Keys(sum)) {
		pts = append(pts, plotter.XY{X: float64(pb), Y: sum[pb] / float64(n[pb])})
	}
	return pts, total / float64(len(runs))
}

// seriesNamer names a run's series: its copy mode and path, and its copy
// threads and regions per page where the runs differ in them.
func seriesNamer(runs []transfer.BenchResult) func(transfer.BenchResult) string {
	threads, regions := varies(runs, func(r transfer.BenchResult) int { return r.Parallel }),
		varies(runs, func(r transfer.BenchResult) int { return r.RegionsPerPage })
	return func(r transfer.BenchResult) string {
		parts := []string{r.Mode, path(r)}
		if threads {
			parts = append(parts, fmt.Sprintf("%d threads", r.Parallel))
		}
		if regions {
			parts = append(parts, fmt.Sprintf("%d regions", r.RegionsPerPage))
		}
		return strings.Join(parts, ", ")
	}
}

// path is how a run moved its pages: direct, staged or async with its
// workers.
func path(r transfer.BenchResult) string {
	switch {
	case r.Direct:
		return "direct"
	case r.Async:
		return fmt.Sprintf("async x%d", r.Workers)
	}
	return "staged"
}

// varies reports whether f differs between runs.
func varies(runs []transfer.BenchResult, f func(transfer.BenchResult) int) bool {
	for _, r := range runs[1:] {
		if f(r) != f(runs[0]) {
			return true
		}
	}
	return false
}
