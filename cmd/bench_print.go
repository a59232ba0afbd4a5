package cmd

import (
	"fmt"

	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/transfer"
)

// printBench prints the runs of a bench as JSON or a table; interrupted
// marks a sweep that Ctrl-C stopped before its last run ("interrupted":
// true beside the runs in JSON).
func printBench(ios *IOStreams, g *globalOptions, sweep bool, rs []transfer.BenchResult, interrupted bool) error {
	if !g.Quiet {
		defer warnDisturbed(ios, rs)
	}
	command := "bench " + string(rs[0].Direction)
	if g.Output == "json" && interrupted {
		return writeHeadedJSON(ios.Out, command, struct {
			Runs        []transfer.BenchResult `json:"runs"`
			Interrupted bool                   `json:"interrupted"`
		}{rs, true})
	}
	if g.Output == "json" {
		return writeHeadedRunsJSON(ios.Out, command, sweep, rs)
	}
	tp := newTablePrinter(ios, "dir", "copy", "mode", "page", "regions", "pages", "GB/s", "baseline", "ratio", "copy GB/s", "verify")
	for _, r := range rs {
		mode := "staged"
		switch {
		case r.Direct:
			mode = "direct"
		case r.Async:
			mode = fmt.Sprintf("async x%d", r.Workers)
		}
		tp.addRow(r.Direction, r.Mode, mode, size.Human(r.PageBytes), r.RegionsPerPage, r.Pages,
			fmt.Sprintf("%.2f", r.GBps), fmt.Sprintf("%.2f", r.BaselineGBps), ratioCell(r),
			fmt.Sprintf("%.2f", r.CopyGBps), r.Verify)
	}
	if err := tp.render(); err != nil {
		return err
	}
	if len(rs) == 1 {
		r := rs[0]
		fmt.Fprintf(ios.Out, "device %s, %s in %.4f s%s%s; phases (ms):", r.Device, size.Human(r.Bytes), r.Seconds, callsOf(r), medianOf(r))
		for _, p := range r.Direction.Phases() {
			if ms, ok := r.PhaseMS[p.String()]; ok {
				fmt.Fprintf(ios.Out, " %s %.2f", p, ms)
			}
		}
		if r.HelpersBusy > 0 {
			fmt.Fprintf(ios.Out, "; helpers busy %.2f", r.HelpersBusy)
		}
		if r.OthersBusyCores != nil {
			fmt.Fprintf(ios.Out, "; other programs busy %.2f cores", *r.OthersBusyCores)
		}
		if r.StealCores != nil && *r.StealCores > 0 {
			fmt.Fprintf(ios.Out, "; hypervisor took %.2f cores", *r.StealCores)
		}
		fmt.Fprintln(ios.Out)
		if r.Geometry.Warning != "" {
			fmt.Fprintf(ios.ErrOut, "warning: %s\n", r.Geometry.Warning)
		}
	}
	return nil
}

// othersBusyWarn is the most cores other programs may keep busy during a
// run before the bench warns that its figures are not a quiet machine's:
// one busy thread beside a staged transfer of 4 KiB pages took it from
// 0.74-0.88 of the link to 0.40-0.58 on a 16-core H100 (docs/benchmarks.md,
// "Copy crews beside a busy thread").
const othersBusyWarn = 0.5

// stealWarn is the most cores' worth of time the hypervisor may give other
// guests during a run before the bench warns: quiet H100 and H200 runs show
// 0 to 0.02, and an H200's runs that lost 0.06 to 0.44 moved 0.21 to 0.84 of
// the link where the same configurations moved 0.83 to 0.95 in another round
// (docs/benchmarks.md, "Issue 16's goals on the H200 at fc56af2").
// bench/goals.sh and bench/transfer_ab.sh mark rows by this figure and
// othersBusyWarn (their BUSY and STOLEN): change them together.
const stealWarn = 0.05

// warnDisturbed warns on stderr, a line each, when other programs kept
// othersBusyWarn cores or more busy during some run, and when the
// hypervisor took stealWarn cores or more from it.
func warnDisturbed(ios *IOStreams, rs []transfer.BenchResult) {
	others := func(r transfer.BenchResult) *float64 { return r.OthersBusyCores }
	steal := func(r transfer.BenchResult) *float64 { return r.StealCores }
	warnRuns(ios, rs, others, othersBusyWarn, "other programs kept up to %.2f cores busy during %s: "+
		"transfers whose copy threads need those cores move less")
	warnRuns(ios, rs, steal, stealWarn, "the hypervisor gave up to %.2f cores' time to other guests during %s: "+
		"transfers stall while their threads wait for their CPUs")
}

// warnRuns writes one warning, format's two verbs the most and which runs,
// when figure is limit or more in some run.
func warnRuns(ios *IOStreams, rs []transfer.BenchResult, figure func(transfer.BenchResult) *float64, limit float64, format string) {
	most, runs := 0.0, 0
	for _, r := range rs {
		if f := figure(r); f != nil && *f >= limit {
			most, runs = max(most, *f), runs+1
		}
	}
	if runs == 0 {
		return
	}
	which := "the run"
	if len(rs) > 1 {
		which = fmt.Sprintf("%d of %d runs", runs, len(rs))
	}
	fmt.Fprintf(ios.ErrOut, "warning: "+format+"; compare figures taken on a quiet machine (docs/bench.md, \"Other programs\")\n", most, which)
}

// ratioCell is a run's ratio to the baseline, with the range of its timed
// runs when there were more than one: "0.83 (0.77-0.84)".
func ratioCell(r transfer.BenchResult) string {
	if r.Repeats < 2 {
		return fmt.Sprintf("%.2f", r.Ratio)
	}
	return fmt.Sprintf("%.2f (%.2f-%.2f)", r.Ratio, r.RatioMin, r.RatioMax)
}

// medianOf says which of a run's timed transfers its figures are: "" for
// one, " (the median of 5)" for more.
func medianOf(r transfer.BenchResult) string {
	if r.Repeats < 2 {
		return ""
	}
	return fmt.Sprintf(" (the median of %d)", r.Repeats)
}

// callsOf says how a run cut its transfer into calls: "" for one call,
// " in 256 calls of 4 pages (0.080 ms a call)" for more.
func callsOf(r transfer.BenchResult) string {
	if r.Calls == 0 {
		return ""
	}
	return fmt.Sprintf(" in %d calls of %d pages (%.3f ms a call)", r.Calls, r.CallPages, r.Seconds*1e3/float64(r.Calls))
}
