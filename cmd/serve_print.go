package cmd

import (
	"fmt"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/size"
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
	tp.addRow("pool", fmt.Sprintf("%s: %d keys, %s of %s, %d evicted", r.Pool.Backend, r.Pool.Keys,
		size.Human(r.Pool.UsedBytes), capacityText(r.Pool.Backend, r.Pool.CapacityBytes), r.Pool.EvictedKeys))
	tp.addRow("prefix holes", fmt.Sprintf("%d holes, %d blocks behind a hole", r.PrefixHoles.Holes, r.PrefixHoles.BehindHoleBlocks))
	tp.addRow("load", fmt.Sprintf("%d pages in %d store calls, %s, %d failed", r.Load.Pages, r.Load.StoreCalls, size.Human(r.Load.Bytes), r.Load.FailedPages))
	if r.PoolCallFailures > 0 {
		tp.addRow("pool call failures", fmt.Sprintf("%d, the first at %.0f ms (request %d)", r.PoolCallFailures,
			*r.FirstPoolFailureAtMS, *r.FirstPoolFailureRequest))
	}
	return tp.render()
}
