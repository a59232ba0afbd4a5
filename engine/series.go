package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/kvctl/kvctl/pool"
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
	used, capacity := e.poolUsage(ctx)
	e.timeline.Add(now, e.stats.Holes.Total(), used, capacity)
}

// poolUsage is the pool's used and capacity bytes: from its
// pool.UsageReporter where it has one, as Stat can walk every key, else
// from Stat (0 and 0 when that fails).
func (e *engine) poolUsage(ctx context.Context) (used, capacity int64) {
	if ur, ok := e.cfg.Pool.(pool.UsageReporter); ok {
		return ur.Usage()
	}
	if st, err := e.cfg.Pool.Stat(context.WithoutCancel(ctx)); err == nil {
		return st.UsedBytes, st.CapacityBytes
	}
	return 0, 0
}

// series are the replay's series at its end.
func (e *engine) series(ctx context.Context) Series {
	e.sampleTimeline(ctx, true)
	return Series{Timeline: e.timeline.Samples(),
		TTFTHistogram: stats.NewLatencyHistogram(e.lat.ttft), ITLHistogram: stats.NewLatencyHistogram(e.lat.itl)}
}
