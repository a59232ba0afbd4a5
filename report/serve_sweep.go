package report

import (
	"encoding/json"
	"fmt"

	"github.com/kvctl/kvctl/chart"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/sensitivity"
	"github.com/kvctl/kvctl/size"
)

// serveSweep is what a report reads of serve --sweep's JSON: the model
// and each run's figures and bursts, not its whole report.
type serveSweep struct {
	Model string          `json:"model"`
	Costs *engine.Costs   `json:"costs"`
	Runs  []serveSweepRun `json:"runs"`
}

// serveSweepRun is one run of a sweep, its report left undecoded.
type serveSweepRun struct {
	sensitivity.Run
	Report json.RawMessage `json:"report"`
}

// validate checks what a report draws: capacities above 0, hit rates of
// 0..1, latencies of 0..maxServeMS and counts that are not negative.
func (s *serveSweep) validate() error {
	for i, r := range s.Runs {
		t := r.TTFTMS
		switch {
		case r.CapacityBytes <= 0:
			return fmt.Errorf("run %d: capacity %d bytes, want above 0", i, r.CapacityBytes)
		case !(r.HitRate >= 0 && r.HitRate <= 1):
			return fmt.Errorf("run %d: hit rate %v, want 0 to 1", i, r.HitRate)
		case !(t.P50 >= 0 && t.P50 <= maxServeMS && t.P99 >= 0 && t.P99 <= maxServeMS):
			return fmt.Errorf("run %d: ttft_ms p50 %v, p99 %v, want 0 to %g", i, t.P50, t.P99, maxServeMS)
		case r.EvictedKeys < 0 || r.RecentMisses < 0 || r.Holes < 0 || r.StrandedBlocks < 0:
			return fmt.Errorf("run %d: a negative count", i)
		}
	}
	return nil
}

// runs are the sweep's runs as sensitivity has them.
func (s *serveSweep) runs() []sensitivity.Run {
	out := make([]sensitivity.Run, len(s.Runs))
	for i, r := range s.Runs {
		out[i] = r.Run
	}
	return out
}

// ServeSweepChart is the figure of a serve pool-size sweep that serve
// --sweep --plot draws, the same as a report draws of its JSON.
func ServeSweepChart(runs []sensitivity.Run) (*chart.Chart, error) {
	pts := make([]chart.ServeSweepRun, len(runs))
	for i, r := range runs {
		pts[i] = chart.ServeSweepRun{CapacityBytes: r.CapacityBytes, HitRate: r.HitRate, TTFTP50MS: r.TTFTMS.P50,
			TTFTP99MS: r.TTFTMS.P99, EvictedKeys: r.EvictedKeys, RecentMisses: r.RecentMisses, Bursts: len(r.Bursts)}
	}
	return chart.ServeSweep(pts)
}

// serveSweep is a sweep's tables (a row per capacity, and its bursts)
// and its figure.
func (s *section) serveSweep(sw *serveSweep) ([]*chart.Chart, error) {
	t := table{Title: "pool capacities", Headers: []string{"capacity", "blocks", "hit rate", "holes", "stranded",
		"evicted", "TTFT ms p50 / p99", "recent misses (torn / whole)", "bursts"}}
	if sw.Costs != nil {
		c := sw.Costs
		t.Title += fmt.Sprintf("; %s costs: %g ms a step, %g ms a prefill token, %g ms a decoding request, %g GB/s pool link",
			sw.Model, c.IterationMS, c.PrefillTokenMS, c.DecodeTokenMS, c.TransferGBps)
	}
	b := table{Title: "bursts", Headers: []string{"capacity", "burst (modelled s)", "recent misses (torn / whole)",
		"evicted", "TTFT ms p99", "cause"}}
	for _, r := range sw.runs() {
		t.addRow(size.Human(r.CapacityBytes), r.CapacityBlocks, percent(r.HitRate), r.Holes, r.StrandedBlocks, r.EvictedKeys,
			fmt.Sprintf("%.0f / %.0f", r.TTFTMS.P50, r.TTFTMS.P99),
			fmt.Sprintf("%d (%d / %d)", r.RecentMisses, r.TornMisses, r.WholeMisses), len(r.Bursts))
		for _, u := range r.Bursts {
			b.addRow(size.Human(r.CapacityBytes), fmt.Sprintf("%.0f-%.0f", u.StartMS/1000, u.EndMS/1000),
				fmt.Sprintf("%d (%d / %d)", u.RecentMisses, u.TornMisses, u.WholeMisses), u.EvictedKeys,
				fmt.Sprintf("%.0f", u.TTFTP99MS), u.Cause)
		}
	}
	s.Tables = append(s.Tables, t)
	if len(b.Rows) > 0 {
		s.Tables = append(s.Tables, b)
	}
	if len(sw.Runs) == 0 {
		return nil, nil
	}
	c, err := ServeSweepChart(sw.runs())
	return []*chart.Chart{c}, err
}
