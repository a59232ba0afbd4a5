package cmd

import (
	"fmt"

	"github.com/kvctl/kvctl/sensitivity"
	"github.com/kvctl/kvctl/size"
)

// printServeSweep prints a sweep as JSON, or as a table of its runs, the
// bursts of each, and how pages were scaled and bursts found.
func printServeSweep(ios *IOStreams, g *globalOptions, res sweepResult) error {
	if g.Output == "json" {
		return writeHeadedJSON(ios.Out, "serve", res)
	}
	tp := newTablePrinter(ios, "capacity", "blocks", "hit rate", "holes", "stranded", "evicted", "TTFT ms p50 / p99",
		"recent misses (torn / whole)", "bursts")
	for _, r := range res.Runs {
		tp.addRow(size.Human(r.CapacityBytes), groupThousands(r.CapacityBlocks), fmt.Sprintf("%.2f%%", 100*r.HitRate),
			groupThousands(r.Holes), groupThousands(r.StrandedBlocks), groupThousands(r.EvictedKeys),
			fmt.Sprintf("%.0f / %.0f", r.TTFTMS.P50, r.TTFTMS.P99),
			fmt.Sprintf("%s (%s / %s)", groupThousands(r.RecentMisses), groupThousands(r.TornMisses), groupThousands(r.WholeMisses)),
			len(r.Bursts))
	}
	if err := tp.render(); err != nil {
		return err
	}
	if err := printBursts(ios, res.Runs); err != nil {
		return err
	}
	_, err := fmt.Fprintln(ios.Out, sweepNote(res))
	return err
}

// printBursts prints every run's bursts, a table row each, when any run
// has one.
func printBursts(ios *IOStreams, runs []sensitivity.Run) error {
	tp := newTablePrinter(ios, "capacity", "burst (modelled s)", "recent misses (torn / whole)", "evicted", "TTFT ms p99", "cause")
	n := 0
	for _, r := range runs {
		for _, b := range r.Bursts {
			n++
			tp.addRow(size.Human(r.CapacityBytes), fmt.Sprintf("%.0f-%.0f", b.StartMS/1000, b.EndMS/1000),
				fmt.Sprintf("%s (%s / %s)", groupThousands(b.RecentMisses), groupThousands(b.TornMisses), groupThousands(b.WholeMisses)),
				groupThousands(b.EvictedKeys), fmt.Sprintf("%.0f", b.TTFTP99MS), string(b.Cause))
		}
	}
	if n == 0 {
		return nil
	}
	fmt.Fprintln(ios.Out)
	return tp.render()
}

// sweepNote says how pages were modelled and what a burst is.
func sweepNote(res sweepResult) string {
	sc, c := res.Scale, res.Criteria
	pages := fmt.Sprintf("blocks of %s", size.Human(sc.ModelledBlockBytes))
	if sc.Ratio != 1 {
		pages += fmt.Sprintf(", moved as %s proxies (pool capacity and bandwidth divided by %.0f)", size.Human(sc.ProxyBlockBytes), sc.Ratio)
	}
	return fmt.Sprintf("\n%s; %s; a burst: %g s windows with at least %d and %gx the median recent misses "+
		"(chains found within %g s, missed now) and at most %gx the median eviction volume",
		pages, costsNote(res.Model, res.Costs), res.WindowMS/1000, c.MinMisses, c.MissFactor, res.RecentMS/1000, c.EvictionFactor)
}
