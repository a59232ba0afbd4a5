package report

import (
	"fmt"
	"time"

	"github.com/kvctl/kvctl/chart"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/stats"
)

// serveReport is what a report reads of serve's JSON (engine.Report,
// whose load statistics are written in a shape of their own). Its series
// are those engine.Report carries; serve's JSON from before they were
// added has none, and is drawn with what it has.
type serveReport struct {
	engine.Outcome
	TTFTMS      engine.Percentiles `json:"ttft_ms"`
	ITLMS       engine.Percentiles `json:"itl_ms"`
	WallSeconds float64            `json:"wall_seconds"`
	PrefixHoles stats.Holes        `json:"prefix_holes"`
	Load        struct {
		Op     stats.Op `json:"op"`
		Phases map[string]struct {
			WallMS float64 `json:"wall_ms"`
		} `json:"phases"`
	} `json:"load"`
	Interrupted bool `json:"interrupted"`
	engine.Series
}

// maxServeMS bounds the times a serve output may hold (about 30 years of
// modelled time), so that every axis has a finite range.
const maxServeMS = 1e12

// validate checks what a report draws: times and latencies from 0 to
// maxServeMS, timeline samples in time order with shares of 0..1 and
// bytes that are not negative, and histograms as stats reads them.
func (r *serveReport) validate() error {
	for name, p := range map[string]engine.Percentiles{"ttft_ms": r.TTFTMS, "itl_ms": r.ITLMS} {
		for _, v := range []float64{p.P50, p.P90, p.P99} {
			if !(v >= 0 && v <= maxServeMS) {
				return fmt.Errorf("%s: %v ms, want 0 to %g", name, v, maxServeMS)
			}
		}
	}
	if err := validTimeline(r.Timeline); err != nil {
		return err
	}
	for name, h := range map[string]*stats.LatencyHistogram{"ttft_histogram": r.TTFTHistogram, "itl_histogram": r.ITLHistogram} {
		if h == nil {
			continue
		}
		if err := h.Validate(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// validTimeline checks a timeline read: see serveReport.validate.
func validTimeline(tl []stats.TimelineSample) error {
	last := 0.0
	for i, s := range tl {
		switch {
		case !(s.AtMS >= last && s.AtMS <= maxServeMS):
			return fmt.Errorf("timeline sample %d: at %v ms, want %v to %g", i, s.AtMS, last, maxServeMS)
		case !(s.HitRate >= 0 && s.HitRate <= 1):
			return fmt.Errorf("timeline sample %d: hit rate %v, want 0 to 1", i, s.HitRate)
		case s.PoolUsedBytes < 0 || s.PoolCapacityBytes < 0:
			return fmt.Errorf("timeline sample %d: pool %d of %d bytes, want neither negative", i, s.PoolUsedBytes, s.PoolCapacityBytes)
		}
		last = s.AtMS
	}
	return nil
}

// loadPhases are the load's phases that ran, in order, as one bar.
func (r *serveReport) loadPhases() chart.Bar {
	bar := chart.Bar{Label: string(r.Load.Op)}
	for _, ph := range r.Load.Op.Phases() {
		if p, ok := r.Load.Phases[ph.String()]; ok {
			bar.Parts = append(bar.Parts, chart.Part{Name: ph.String(), MS: p.WallMS})
		}
	}
	return bar
}

// ServeChart is the figure of a serve replay that serve --plot draws, the
// same as a report draws of its JSON (serveChart).
func ServeChart(rep engine.Report) (*chart.Chart, error) {
	bar := chart.Bar{Label: string(rep.Load.Op)}
	for _, p := range rep.Load.Op.Phases() {
		if ps := rep.Load.Phases[p]; ps.Count > 0 {
			bar.Parts = append(bar.Parts, chart.Part{Name: p.String(), MS: float64(ps.Wall) / float64(time.Millisecond)})
		}
	}
	return serveChart(rep.Series, rep.TTFTMS, rep.ITLMS, bar)
}

// serveChart draws a replay's timeline, its latency distributions (from
// their histograms, or through the percentiles of a report without them)
// and its load phases.
func serveChart(s engine.Series, ttft, itl engine.Percentiles, load chart.Bar) (*chart.Chart, error) {
	return chart.Serve(s.Timeline, []chart.Distribution{latency("TTFT", s.TTFTHistogram, ttft), latency("ITL", s.ITLHistogram, itl)}, load)
}

// latency is a distribution from its histogram when there is one, else
// through its percentiles, named so.
func latency(name string, h *stats.LatencyHistogram, p engine.Percentiles) chart.Distribution {
	if h != nil && h.Total() > 0 {
		return chart.HistogramCDF(name, h)
	}
	return chart.Distribution{Name: name + " (through p50, p90, p99)",
		Quantiles: []chart.Quantile{{P: 0.5, MS: p.P50}, {P: 0.9, MS: p.P90}, {P: 0.99, MS: p.P99}}}
}
