package report

import (
	"github.com/kvctl/kvctl/chart"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/stats"
)

// serveReport is what a report reads of serve's JSON (engine.Report,
// whose load statistics are written in a shape of their own).
type serveReport struct {
	Requests             int64              `json:"requests"`
	Completed            int64              `json:"completed"`
	Failed               int64              `json:"failed"`
	PromptTokens         int64              `json:"prompt_tokens"`
	ComputedPromptTokens int64              `json:"computed_prompt_tokens"`
	LocalHitTokens       int64              `json:"local_hit_tokens"`
	PoolHitTokens        int64              `json:"pool_hit_tokens"`
	HitRate              float64            `json:"hit_rate"`
	LoadedPages          int64              `json:"loaded_pages"`
	SavedPages           int64              `json:"saved_pages"`
	Restarts             int64              `json:"restarts"`
	VerifyMismatches     int64              `json:"verify_mismatches"`
	TTFTMS               engine.Percentiles `json:"ttft_ms"`
	ITLMS                engine.Percentiles `json:"itl_ms"`
	WallSeconds          float64            `json:"wall_seconds"`
	PrefixHoles          stats.Holes        `json:"prefix_holes"`
	Load                 struct {
		Op     stats.Op `json:"op"`
		Phases map[string]struct {
			WallMS float64 `json:"wall_ms"`
		} `json:"phases"`
	} `json:"load"`
	Interrupted bool `json:"interrupted"`
}

// distribution is p as quantiles of a distribution named name.
func distribution(name string, p engine.Percentiles) chart.Distribution {
	return chart.Distribution{Name: name, Quantiles: []chart.Quantile{{P: 0.5, MS: p.P50}, {P: 0.9, MS: p.P90}, {P: 0.99, MS: p.P99}}}
}

// loadPhases are the load's phases that ran, in order, as one bar.
func (r *serveReport) loadPhases() (chart.Bar, bool) {
	bar := chart.Bar{Label: string(r.Load.Op)}
	for _, ph := range r.Load.Op.Phases() {
		if p, ok := r.Load.Phases[ph.String()]; ok {
			bar.Parts = append(bar.Parts, chart.Part{Name: ph.String(), MS: p.WallMS})
		}
	}
	return bar, len(bar.Parts) > 0
}
