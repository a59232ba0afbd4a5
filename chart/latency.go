package chart

import (
	"errors"
	"fmt"

	"github.com/kvctl/kvctl/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Quantile is one point of a latency distribution: a share P (0..1) of the
// samples took at most MS milliseconds.
type Quantile struct {
	P  float64
	MS float64
}

// Distribution is a named latency distribution, its quantiles in order.
type Distribution struct {
	Name      string
	Quantiles []Quantile
}

// HistogramCDF is the distribution h counts, named name: the share of
// samples below the upper edge of each bucket that holds any (exact
// there, at the buckets' 2.3 % resolution in milliseconds), flat across
// empty buckets, from 0 at the first bucket's lower edge.
func HistogramCDF(name string, h *stats.LatencyHistogram) Distribution {
	d := Distribution{Name: name}
	n := float64(h.Total())
	if n == 0 {
		return d
	}
	var seen int64
	for j, c := range h.Counts {
		if c == 0 {
			continue
		}
		if j == 0 || h.Counts[j-1] == 0 {
			d.Quantiles = append(d.Quantiles, Quantile{P: float64(seen) / n, MS: h.LowerMS(j)})
		}
		seen += c
		d.Quantiles = append(d.Quantiles, Quantile{P: float64(seen) / n, MS: h.UpperMS(j)})
	}
	return d
}

// errNoLatency is latencyPanel's error when no distribution has a
// latency above 0 ms to draw on a log scale.
var errNoLatency = errors.New("no latency above 0 ms")

// LatencyCDF charts latency distributions as cumulative distributions:
// milliseconds across (log scale), the share of samples up to each
// quantile the distribution holds. A report that keeps only percentiles
// draws a curve through those.
func LatencyCDF(title string, dists ...Distribution) (*Chart, error) {
	p, err := latencyPanel(title, dists)
	if err != nil {
		return nil, err
	}
	return &Chart{Title: title, panels: []*plot.Plot{p}, w: defaultWidth, h: defaultHeight}, nil
}

// latencyPanel is LatencyCDF's plot.
func latencyPanel(title string, dists []Distribution) (*plot.Plot, error) {
	p := newPlot(title, "milliseconds (modelled, log scale)", "share of samples at most")
	n := 0
	for i, d := range dists {
		var pts plotter.XYs
		for _, q := range d.Quantiles {
			if q.MS > 0 {
				pts = append(pts, plotter.XY{X: q.MS, Y: q.P})
			}
		}
		if len(pts) == 0 {
			continue
		}
		if err := addSeries(p, i, d.Name, pts); err != nil {
			return nil, fmt.Errorf("charting %s: %w", title, err)
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("charting %s: %w", title, errNoLatency)
	}
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	padLogRange(&p.X)
	p.Y.Min, p.Y.Max, p.Y.Tick.Marker = 0, 1, fractionTicks{}
	p.Legend.Top, p.Legend.Left, p.Legend.XOffs, p.Legend.YOffs = false, false, -vg.Points(8), vg.Points(8)
	return p, nil
}

// Part is one phase's share of a transfer's time.
type Part struct {
	Name string
	MS   float64
}

// Bar is one transfer's phases, stacked in order.
type Bar struct {
	Label string
	Parts []Part
}

// Phases charts where transfers' time went: one horizontal bar per
// transfer, its phases' wall milliseconds stacked in order. Every bar
// must name the same phases in the same order.
func Phases(title string, bars ...Bar) (*Chart, error) {
	p, err := phasesPanel(title, bars)
	if err != nil {
		return nil, err
	}
	c := &Chart{Title: title, panels: []*plot.Plot{p}, w: defaultWidth, h: min(defaultHeight, barsHeight(len(bars)))}
	c.legendOutside(1.4 * vg.Inch)
	return c, nil
}

// phasesPanel is Phases' plot, its legend inside the axes.
func phasesPanel(title string, bars []Bar) (*plot.Plot, error) {
	if len(bars) == 0 || len(bars[0].Parts) == 0 {
		return nil, errors.New("charting phases: no phase timed")
	}
	p := newPlot(title, "milliseconds (sum over calls)", "")
	var below *plotter.BarChart
	for i, part := range bars[0].Parts {
		vals := make(plotter.Values, len(bars))
		for j, b := range bars {
			if len(b.Parts) != len(bars[0].Parts) || b.Parts[i].Name != part.Name {
				return nil, fmt.Errorf("charting phases: bar %q has other phases than bar %q", b.Label, bars[0].Label)
			}
			vals[j] = b.Parts[i].MS
		}
		bc, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return nil, fmt.Errorf("charting phase %s: %w", part.Name, err)
		}
		bc.Horizontal, bc.Color, bc.LineStyle.Width = true, seriesColor(i), 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		p.Legend.Add(part.Name, bc)
	}
	labels := make([]string, len(bars))
	for i, b := range bars {
		labels[i] = b.Label
	}
	p.NominalY(labels...)
	p.Y.Min, p.Y.Max = -0.7, float64(len(bars))-0.3
	p.X.Min = 0
	p.Legend.Left = false
	return p, nil
}

// barWidth is the thickness of a phases bar.
const barWidth = vg.Length(28)

// barsHeight is the height of a phases figure of n bars.
func barsHeight(n int) vg.Length { return vg.Inch*1.4 + vg.Length(n)*barWidth*1.6 }
