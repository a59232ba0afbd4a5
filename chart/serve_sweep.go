package chart

import (
	"cmp"
	"errors"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Serve sweep series names, as the legend spells them (beside
// SeriesHitRate).
const (
	SeriesTTFTP50      = "TTFT p50"
	SeriesTTFTP99      = "TTFT p99"
	SeriesBurstMark    = "capacity with bursts"
	SeriesEvicted      = "evicted keys"
	SeriesRecentMisses = "recent misses (recently read chains missed)"
	SeriesBursts       = "bursts"
)

// sweepHeight is the height of a figure of four panels.
const sweepHeight = 12 * vg.Inch

// legendRoom raises a panel's top above its highest point, so that the
// legend at the top left does not cover the series.
const legendRoom = 1.3

// ServeSweepRun is one capacity of a serve pool-size sweep, as ServeSweep
// draws it (sensitivity.Run holds them all).
type ServeSweepRun struct {
	CapacityBytes        int64
	HitRate              float64
	TTFTP50MS, TTFTP99MS float64
	EvictedKeys          int64
	RecentMisses         int64
	Bursts               int
}

// ServeSweep charts a serve pool-size sweep against pool capacity (log
// scale), in panels: the hit rate; TTFT p50 and p99, each capacity with
// bursts ringed; the keys evicted; the recent misses and the bursts.
func ServeSweep(runs []ServeSweepRun) (*Chart, error) {
	if len(runs) == 0 {
		return nil, errors.New("charting a pool-size sweep: no runs")
	}
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b ServeSweepRun) int { return cmp.Compare(a.CapacityBytes, b.CapacityBytes) })
	pts := func(y func(ServeSweepRun) float64) plotter.XYs {
		xy := make(plotter.XYs, len(runs))
		for i, r := range runs {
			xy[i] = plotter.XY{X: float64(r.CapacityBytes), Y: y(r)}
		}
		return xy
	}
	hit := pts(func(r ServeSweepRun) float64 { return r.HitRate })
	top, err := hitRatePanel("Serving against pool capacity", hit, nil)
	if err != nil {
		return nil, err
	}
	ttft, err := ttftPanel(runs, pts)
	if err != nil {
		return nil, err
	}
	evicted, err := countPanel("keys", pts, []countSeries{{SeriesEvicted, 1, func(r ServeSweepRun) float64 { return float64(r.EvictedKeys) }}})
	if err != nil {
		return nil, err
	}
	misses, err := countPanel("count", pts, []countSeries{
		{SeriesRecentMisses, 2, func(r ServeSweepRun) float64 { return float64(r.RecentMisses) }},
		{SeriesBursts, 3, func(r ServeSweepRun) float64 { return float64(r.Bursts) }},
	})
	if err != nil {
		return nil, err
	}
	misses.X.Label.Text = "pool capacity (log scale)"
	panels := []*plot.Plot{top, ttft, evicted, misses}
	capacityAxes(panels, hit[0].X, hit[len(hit)-1].X)
	return &Chart{Title: top.Title.Text, panels: panels, w: defaultWidth, h: sweepHeight}, nil
}

// ttftPanel is TTFT p50 and p99 against capacity, the capacities with
// bursts ringed on the p99 line; in seconds when the p99 reaches 10 s.
func ttftPanel(runs []ServeSweepRun, pts func(func(ServeSweepRun) float64) plotter.XYs) (*plot.Plot, error) {
	unit, label := 1.0, "TTFT (modelled ms)"
	if slices.MaxFunc(runs, func(a, b ServeSweepRun) int { return cmp.Compare(a.TTFTP99MS, b.TTFTP99MS) }).TTFTP99MS >= 10_000 {
		unit, label = 1000, "TTFT (modelled s)"
	}
	p := newPlot("", "", label)
	if err := addSeries(p, 4, SeriesTTFTP50, pts(func(r ServeSweepRun) float64 { return r.TTFTP50MS / unit })); err != nil {
		return nil, err
	}
	if err := addSeries(p, 5, SeriesTTFTP99, pts(func(r ServeSweepRun) float64 { return r.TTFTP99MS / unit })); err != nil {
		return nil, err
	}
	var marked plotter.XYs
	for _, r := range runs {
		if r.Bursts > 0 {
			marked = append(marked, plotter.XY{X: float64(r.CapacityBytes), Y: r.TTFTP99MS / unit})
		}
	}
	if len(marked) > 0 {
		rings, err := plotter.NewScatter(marked)
		if err != nil {
			return nil, err
		}
		rings.Shape, rings.Color, rings.Radius = draw.RingGlyph{}, seriesColor(3), vg.Points(7)
		p.Add(rings)
		p.Legend.Add(SeriesBurstMark, rings)
	}
	p.Y.Min, p.Y.Max = 0, p.Y.Max*legendRoom
	return p, nil
}

// countSeries is one series of a countPanel: its name, colour index and
// value.
type countSeries struct {
	name  string
	color int
	value func(ServeSweepRun) float64
}

// countPanel is counts against capacity on an axis from 0 (to at least
// 1, so that all zeros draw on 0..1).
func countPanel(label string, pts func(func(ServeSweepRun) float64) plotter.XYs, series []countSeries) (*plot.Plot, error) {
	p := newPlot("", "", label)
	for _, s := range series {
		if err := addSeries(p, s.color, s.name, pts(s.value)); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max = 0, max(p.Y.Max*legendRoom, 1)
	return p, nil
}
