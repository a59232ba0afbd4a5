package chart

import (
	"cmp"
	"errors"
	"slices"

	"github.com/kvctl/kvctl/holes"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// Capacity sweep series names, as the legend spells them.
const (
	SeriesHitRate  = "hit rate (tokens)"
	SeriesHoles    = "blocks in holes"
	SeriesStranded = "blocks stranded behind a hole"
	SeriesIdeal    = "ideal reuse (no eviction)"
)

// CapacitySweep charts a simulated capacity sweep against pool capacity
// (log scale): above, the hit rate, with the trace's ideal reuse as a
// dashed line when ideal is not nil; below, the blocks in holes and the
// blocks stranded behind a hole.
func CapacitySweep(runs []holes.Run, ideal *float64) (*Chart, error) {
	if len(runs) == 0 {
		return nil, errors.New("charting a capacity sweep: no runs")
	}
	sorted := sortedRuns(runs)
	hit, hole, stranded := make(plotter.XYs, len(sorted)), make(plotter.XYs, len(sorted)), make(plotter.XYs, len(sorted))
	for i, r := range sorted {
		x, s := float64(r.CapacityBytes), r.Summary
		hit[i] = plotter.XY{X: x, Y: s.HitRate()}
		hole[i] = plotter.XY{X: x, Y: float64(s.HoleBlocks)}
		stranded[i] = plotter.XY{X: x, Y: float64(s.BehindHoleBlocks)}
	}
	top, err := hitRatePanel("Prefix reuse against pool capacity", hit, ideal)
	if err != nil {
		return nil, err
	}
	bottom := newPlot("", "pool capacity (log scale)", "blocks")
	if err := addSeries(bottom, 1, SeriesHoles, hole); err != nil {
		return nil, err
	}
	if err := addSeries(bottom, 2, SeriesStranded, stranded); err != nil {
		return nil, err
	}
	// With no hole at any capacity, 0..1 rather than the -1..1 an axis
	// of equal ends gets.
	bottom.Y.Min, bottom.Y.Max = 0, max(bottom.Y.Max, 1)
	capacityAxes([]*plot.Plot{top, bottom}, hit[0].X, hit[len(hit)-1].X)
	return &Chart{Title: top.Title.Text, panels: []*plot.Plot{top, bottom}, w: defaultWidth, h: tallHeight}, nil
}

// hitRatePanel is a panel of the hit rate against capacity on a 0..1
// axis, with the ideal reuse as a dashed line when ideal is not nil.
func hitRatePanel(title string, hit plotter.XYs, ideal *float64) (*plot.Plot, error) {
	p := newPlot(title, "", "hit rate (prompt tokens)")
	if err := addSeries(p, 0, SeriesHitRate, hit); err != nil {
		return nil, err
	}
	if ideal != nil {
		line := plotter.XYs{{X: hit[0].X, Y: *ideal}, {X: hit[len(hit)-1].X, Y: *ideal}}
		if err := addReference(p, SeriesIdeal, line); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max, p.Y.Tick.Marker = 0, 1, fractionTicks{}
	return p, nil
}

// capacityAxes gives panels one capacity axis: log scale, byte ticks,
// from lo to hi with a margin.
func capacityAxes(panels []*plot.Plot, lo, hi float64) {
	for _, p := range panels {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, bytesTicks{}
		p.X.Min, p.X.Max = lo, hi
		padLogRange(&p.X)
	}
}

// sortedRuns is runs in order of capacity.
func sortedRuns(runs []holes.Run) []holes.Run {
	out := append([]holes.Run(nil), runs...)
	slices.SortStableFunc(out, func(a, b holes.Run) int { return cmp.Compare(a.CapacityBytes, b.CapacityBytes) })
	return out
}

// share is n / of, 0 when of is 0.
func share(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}
