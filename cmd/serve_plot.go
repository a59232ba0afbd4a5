package cmd

import (
	"context"
	"time"

	"github.com/kvctl/kvctl/chart"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// defaultPlotInterval is the sampling interval of serve --plot's timeline
// (modelled time) when --stats-interval gives none.
const defaultPlotInterval = time.Second

// serveTimeline samples a replay for --plot at each prefix-hole
// statistics line (every --stats-interval of modelled time): the modelled
// time, the interval's pool hit rate and the pool's occupancy.
type serveTimeline struct {
	clock   *engine.Clock
	pool    pool.Store
	samples []chart.Sample
}

// attach makes cfg's statistics lines feed t as well: with --stats-interval
// the lines are printed as before; without, serve samples every
// defaultPlotInterval and prints only the warnings.
func (t *serveTimeline) attach(cfg *engine.Config) {
	t.clock, t.pool = cfg.Clock, cfg.Pool
	print := cfg.StatsLine
	quietStats := cfg.StatsInterval == 0
	if quietStats {
		cfg.StatsInterval = defaultPlotInterval
	}
	cfg.StatsLine = func(line string) {
		rec, ok, _ := stats.ParseLine(line)
		if ok && rec.Kind == stats.KindHoles {
			t.observe(rec.Holes)
		}
		if print != nil && !(ok && quietStats) {
			print(line)
		}
	}
}

// observe records one sample at the clock's time.
func (t *serveTimeline) observe(h stats.Holes) {
	s := chart.Sample{AtMS: t.clock.ElapsedMS(), HitRate: h.HitRate()}
	if st, err := t.pool.Stat(context.Background()); err == nil {
		s.PoolUsedBytes, s.PoolCapacityBytes = st.UsedBytes, st.CapacityBytes
	}
	t.samples = append(t.samples, s)
}

// serveChart is serve's --plot figure of a replay.
func serveChart(rep engine.Report, samples []chart.Sample) (*chart.Chart, error) {
	dist := func(name string, p engine.Percentiles) chart.Distribution {
		return chart.Distribution{Name: name, Quantiles: []chart.Quantile{{P: 0.5, MS: p.P50}, {P: 0.9, MS: p.P90}, {P: 0.99, MS: p.P99}}}
	}
	bar := chart.Bar{Label: "load"}
	for _, p := range stats.LoadPhases {
		if ps := rep.Load.Phases[p]; ps.Count > 0 {
			bar.Parts = append(bar.Parts, chart.Part{Name: p.String(), MS: float64(ps.Wall) / float64(time.Millisecond)})
		}
	}
	return chart.Serve(samples, []chart.Distribution{dist("TTFT", rep.TTFTMS), dist("ITL", rep.ITLMS)}, bar)
}
