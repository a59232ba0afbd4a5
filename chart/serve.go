package chart

import (
	"errors"
	"fmt"

	"github.com/kvctl/kvctl/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Serve series names, as the legend spells them.
const (
	SeriesIntervalHitRate = "pool hit rate over the interval"
	SeriesOccupancy       = "pool occupancy (used / capacity)"
)

// ErrNothingToDraw is Serve's error for a replay with no samples, no
// latency above 0 ms and no load phases.
var ErrNothingToDraw = errors.New("nothing to draw")

// Serve charts a serve replay in panels: the pool's hit rate and
// occupancy over modelled time (when there are samples), the TTFT and ITL
// distributions (when any latency is above 0 ms), and the load phases
// stacked (when phases has parts).
func Serve(samples []stats.TimelineSample, latencies []Distribution, phases Bar) (*Chart, error) {
	var panels []*plot.Plot
	var heights vg.Length
	if len(samples) > 0 {
		p, err := timelinePanel(samples)
		if err != nil {
			return nil, err
		}
		panels, heights = append(panels, p), heights+4*vg.Inch
	}
	switch p, err := latencyPanel("TTFT and ITL", latencies); {
	case err == nil:
		panels, heights = append(panels, p), heights+4*vg.Inch
	case !errors.Is(err, errNoLatency):
		return nil, err
	}
	if len(phases.Parts) > 0 {
		p, err := phasesPanel("Pool loads: where the time went", []Bar{phases})
		if err != nil {
			return nil, err
		}
		panels, heights = append(panels, p), heights+barsHeight(1)
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("charting a replay: %w", ErrNothingToDraw)
	}
	return &Chart{Title: "serve replay", panels: panels, w: defaultWidth, h: heights}, nil
}

// timelinePanel plots the samples' hit rate and occupancy over time.
func timelinePanel(samples []stats.TimelineSample) (*plot.Plot, error) {
	if len(samples) == 0 {
		return nil, errors.New("charting a replay's timeline: no samples")
	}
	hit, used := make(plotter.XYs, len(samples)), make(plotter.XYs, len(samples))
	for i, s := range samples {
		x := s.AtMS / 1000
		hit[i] = plotter.XY{X: x, Y: s.HitRate}
		used[i] = plotter.XY{X: x, Y: share(s.PoolUsedBytes, s.PoolCapacityBytes)}
	}
	p := newPlot("Pool over the replay", "modelled seconds", "share")
	for i, s := range []struct {
		name string
		pts  plotter.XYs
	}{{SeriesIntervalHitRate, hit}, {SeriesOccupancy, used}} {
		if err := addSeries(p, i, s.name, s.pts); err != nil {
			return nil, fmt.Errorf("charting a replay's timeline: %w", err)
		}
	}
	p.Y.Min, p.Y.Max, p.Y.Tick.Marker = 0, 1, fractionTicks{}
	return p, nil
}
