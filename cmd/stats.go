package cmd

import (
	"context"
	"fmt"
	"strconv"

	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/stats"
	"github.com/spf13/cobra"
)

func newStatsCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "stats",
		Short: "Work with the statistics lines servers log",
	}
	c.AddCommand(newStatsParseCmd(ios, g))
	return c
}

func newStatsParseCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "parse LOG...",
		Short: "Summarise prefix-hole, load and async-load statistics lines from server logs",
		Long: `Find every statistics line in server logs, wherever it sits in a line (after
timestamps and levels): kvctl's and the connector's "prefix-hole stats:" and
"load stats:" lines, and TensorRT-LLM's "mooncake-store async-load stats:" line.
Each line covers the interval since its rank's previous one, so counts add up.
"-" reads stdin. Malformed statistics lines are counted and the first few shown.
Line format: docs/stats-lines.md.

Exit codes: 2 when a log cannot be opened.`,
		Example: "$ kvctl stats parse server-rank*.log\n$ kvctl stats parse trtllm.log -o json",
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			if len(args) == 0 {
				return usagef("give at least one log file (or - for stdin)")
			}
			sum, err := parseLogs(c.Context(), ios, args)
			if err != nil {
				return err
			}
			if g.Output == "json" {
				return writeJSON(ios.Out, sum)
			}
			return printStatsSummary(ios, sum)
		},
	}
}

// parseLogs parses and merges the logs at paths ("-" is stdin); ctx ends
// it between two reads.
func parseLogs(ctx context.Context, ios *IOStreams, paths []string) (stats.Summary, error) {
	var total stats.Summary
	for _, p := range paths {
		name, r, err := openInput(ios, p)
		if err != nil {
			return total, asUsage(fmt.Errorf("opening log: %w", err))
		}
		s, err := stats.ParseLog(contextReader{ctx: ctx, r: r}, name)
		r.Close()
		if err != nil {
			return total, err
		}
		total.Merge(s)
	}
	return total, nil
}

// rankCount spells how many ranks a kind of line came from: "-" when no
// line named one (serve's own lines have no rank=), which 0 would misread
// as rank 0.
func rankCount(ranks []int) string {
	if len(ranks) == 0 {
		return "-"
	}
	return strconv.Itoa(len(ranks))
}

func printStatsSummary(ios *IOStreams, s stats.Summary) error {
	tp := newTablePrinter(ios, "kind", "lines", "ranks", "figures")
	if h := s.PrefixHoles; h != nil {
		tp.addRow("prefix-hole", h.Lines, rankCount(h.Ranks), summaryLine(h.Totals))
	}
	for _, l := range []*stats.LoadSummary{s.Load, s.Save} {
		if l != nil {
			t := l.Totals
			tp.addRow(fmt.Sprint(t.Op), l.Lines, rankCount(l.Ranks),
				fmt.Sprintf("%d pages, %d store calls, %s, %d failed pages", t.Pages, t.StoreCalls, size.Human(t.Bytes), t.FailedPages))
		}
	}
	if a := s.AsyncLoad; a != nil {
		tp.addRow("async-load", a.Lines, rankCount(a.Ranks), fmt.Sprintf(
			"%d completed, wait %.2f ms mean %.2f max, transfer %.2f ms mean %.2f max, queue max %d, %d failed pages, %.2f GiB",
			a.Completed, a.WaitMeanMS, a.WaitMaxMS, a.TransferMeanMS, a.TransferMaxMS, a.QueueMax, a.FailedPages, a.LoadedGiB))
	}
	if err := tp.render(); err != nil {
		return err
	}
	fmt.Fprintf(ios.Out, "%d lines read, %d statistics lines, %d malformed\n", s.Lines, s.Matched, s.Malformed)
	for _, e := range s.Errors {
		fmt.Fprintf(ios.ErrOut, "malformed: %s\n", e)
	}
	return nil
}
