package cmd

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/stats"
)

func printServeReport(ios *IOStreams, g *globalOptions, r engine.Report) error {
	if g.Output == "json" {
		return writeHeadedJSON(ios.Out, "serve", r)
	}
	tp := newTablePrinter(ios, "field", "value")
	tp.addRow("requests", fmt.Sprintf("%d (%d completed, %d failed)", r.Requests, r.Completed, r.Failed))
	tp.addRow("prompt tokens", r.PromptTokens)
	tp.addRow("computed prompt tokens", r.ComputedPromptTokens)
	tp.addRow("local hit tokens", r.LocalHitTokens)
	tp.addRow("pool hit tokens", r.PoolHitTokens)
	tp.addRow("hit rate", fmt.Sprintf("%.2f%%", 100*r.HitRate))
	tp.addRow("loaded pages", r.LoadedPages)
	tp.addRow("saved pages", r.SavedPages)
	tp.addRow("restarts", r.Restarts)
	tp.addRow("verify mismatches", r.VerifyMismatches)
	tp.addRow("iterations", r.Iterations)
	tp.addRow("TTFT ms p50/p90/p99", fmt.Sprintf("%.1f / %.1f / %.1f", r.TTFTMS.P50, r.TTFTMS.P90, r.TTFTMS.P99))
	tp.addRow("ITL ms p50", fmt.Sprintf("%.2f", r.ITLMS.P50))
	tp.addRow("wall seconds", fmt.Sprintf("%.2f", r.WallSeconds))
	tp.addRow("modelled costs", costsNote(r.Model, r.Costs))
	tp.addRow("pool", fmt.Sprintf("%s: %d keys, %s of %s, %d evicted", r.Pool.Backend, r.Pool.Keys,
		size.Human(r.Pool.UsedBytes), capacityText(r.Pool.Backend, r.Pool.CapacityBytes), r.Pool.EvictedKeys))
	if r.PoolKeysRemoved > 0 {
		tp.addRow("pool keys removed", fmt.Sprintf("%d of the run's, at its end (--keep keeps them)", r.PoolKeysRemoved))
	}
	tp.addRow("prefix holes", fmt.Sprintf("%d holes, %d blocks behind a hole", r.PrefixHoles.Holes, r.PrefixHoles.BehindHoleBlocks))
	tp.addRow("load", transferText(r.Load))
	tp.addRow("save", transferText(r.Save))
	if r.AttentionDP > 0 {
		tp.addRow("attention DP", attentionDPText(r))
	}
	if r.Disagg != nil {
		addDisaggRows(tp, r.Disagg)
	}
	if r.PoolCallFailures > 0 {
		tp.addRow("pool call failures", fmt.Sprintf("%d, the first at %.0f ms (request %d)", r.PoolCallFailures,
			*r.FirstPoolFailureAtMS, *r.FirstPoolFailureRequest))
	}
	if err := tp.render(); err != nil {
		return err
	}
	fmt.Fprintln(ios.Out)
	return printServePerformance(ios, r)
}

// printServePerformance prints the report's serving-benchmark table:
// load, throughput, latency percentiles (modelled) and prefix hit rate.
func printServePerformance(ios *IOStreams, r engine.Report) error {
	load := "open loop"
	if r.Concurrency > 0 {
		load = fmt.Sprintf("%d clients", r.Concurrency)
	}
	tp := newTablePrinter(ios, "load", "requests/s", "output tokens/s", "TTFT ms p50/p90/p99", "ITL ms p50/p90/p99", "hit rate")
	tp.addRow(load, fmt.Sprintf("%.2f", r.RequestsPerS), fmt.Sprintf("%.1f", r.OutputTokensPerS),
		fmt.Sprintf("%.1f / %.1f / %.1f", r.TTFTMS.P50, r.TTFTMS.P90, r.TTFTMS.P99),
		fmt.Sprintf("%.2f / %.2f / %.2f", r.ITLMS.P50, r.ITLMS.P90, r.ITLMS.P99), fmt.Sprintf("%.2f%%", 100*r.HitRate))
	return tp.render()
}

// attentionDPText spells the owners, the routing, and how the requests
// and prefill were shared.
func attentionDPText(r engine.Report) string {
	s := fmt.Sprintf("%d owners, %s routing; requests %s; prefill tokens %s", r.AttentionDP, r.ADPRouting,
		joinInts(r.OwnerRequests), joinInts(r.OwnerPrefillTokens))
	if b := r.PrefillPerPass; b != nil {
		s += fmt.Sprintf("; per pass max/mean %.0f/%.0f (%.2f)", b.Max, b.Mean, b.Imbalance)
	}
	return s
}

// joinInts spells xs as "a/b/c".
func joinInts(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, "/")
}

// transferText is a serve table's line for the connector's loads or
// saves: pages, store calls, bytes, failures and the wall time of their
// phases.
func transferText(l stats.Load) string {
	ms := float64(l.Wall()) / float64(time.Millisecond)
	return fmt.Sprintf("%d pages in %d store calls, %s, %d failed, %.1f ms", l.Pages, l.StoreCalls, size.Human(l.Bytes), l.FailedPages, ms)
}
