package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/kvctl/kvctl/stats"
)

// DefaultTimelineInterval is how often a replay samples its timeline when
// Config.StatsInterval sets no interval (modelled time).
const DefaultTimelineInterval = time.Second

// Series are a replay's series for figures (serve --plot and kvctl
// report draw from them), each bounded in size however long the replay.
type Series struct {
	// Timeline is the pool's hit rate and occupancy over modelled time,
	// sampled every Config.StatsInterval (DefaultTimelineInterval without
	// one), at most stats.MaxTimelineSamples samples.
	Timeline []stats.TimelineSample `json:"timeline,omitempty"`
	// TTFTHistogram and ITLHistogram are the samples behind TTFTMS and
	// ITLMS, in at most 1,000 buckets each (stats.LatencyHistogram).
	TTFTHistogram *stats.LatencyHistogram `json:"ttft_histogram,omitempty"`
	ITLHistogram  *stats.LatencyHistogram `json:"itl_histogram,omitempty"`
}

// newTimeline is cfg's timeline recorder.
func newTimeline(cfg Config) *stats.Timeline {
	every := cmp.Or(cfg.StatsInterval, DefaultTimelineInterval)
	return stats.NewTimeline(float64(every) / float64(time.Millisecond))
}

// sampleTimeline adds a timeline sample when one is due, or when final
// (the end of the replay) unless one was taken at this instant.
func (e *engine) sampleTimeline(ctx context.Context, final bool) {
	now := e.clock.ElapsedMS()
	if !e.timeline.Due(now) && !(final && !e.timeline.SampledAt(now)) {
		return
	}
	var used, capacity int64
	if st, err := e.cfg.Pool.Stat(context.WithoutCancel(ctx)); err == nil {
		used, capacity = st.UsedBytes, st.CapacityBytes
	}
	e.timeline.Add(now, e.stats.Holes.Total(), used, capacity)
}

// series are the replay's series at its end.
func (e *engine) series(ctx context.Context) Series {
	e.sampleTimeline(ctx, true)
	return Series{Timeline: e.timeline.Samples(),
		TTFTHistogram: stats.NewLatencyHistogram(e.lat.ttft), ITLHistogram: stats.NewLatencyHistogram(e.lat.itl)}
}
