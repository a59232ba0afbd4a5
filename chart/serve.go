package chart

import (
	"errors"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Sample is the state of a replay at one instant of modelled time.
type Sample struct {
	// AtMS is the modelled time since the replay started.
	AtMS float64 `json:"at_ms"`
	// HitRate is the pool's hit rate over the interval that ends at AtMS.
	HitRate float64 `json:"hit_rate"`
	// PoolUsedBytes and PoolCapacityBytes are the pool's occupancy then.
	PoolUsedBytes     int64 `json:"pool_used_bytes"`
	PoolCapacityBytes int64 `json:"pool_capacity_bytes"`
}

// Serve series names, as the legend spells them.
const (
	SeriesIntervalHitRate = "pool hit rate over the interval"
	SeriesOccupancy       = "pool occupancy (used / capacity)"
)

// Serve charts a serve replay in panels: the pool's hit rate and
// occupancy over modelled time (when there are samples), the TTFT and ITL
// distributions, and the load phases stacked (when phases has parts).
func Serve(samples []Sample, latencies []Distribution, phases Bar) (*Chart, error) {
	var panels []*plot.Plot
	var heights vg.Length
	if len(samples) > 0 {
		p, err := timelinePanel(samples)
		if err != nil {
			return nil, err
		}
		panels, heights = append(panels, p), heights+4*vg.Inch
	}
	p, err := latencyPanel("TTFT and ITL", latencies)
	if err != nil {
		return nil, err
	}
	panels, heights = append(panels, p), heights+4*vg.Inch
	if len(phases.Parts) > 0 {
		p, err := phasesPanel("Pool loads: where the time went", []Bar{phases})
		if err != nil {
			return nil, err
		}
		panels, heights = append(panels, p), heights+barsHeight(1)
	}
	return &Chart{Title: "serve replay", panels: panels, w: defaultWidth, h: heights}, nil
}

// timelinePanel plots the samples' hit rate and occupancy over time.
func timelinePanel(samples []Sample) (*plot.Plot, error) {
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
