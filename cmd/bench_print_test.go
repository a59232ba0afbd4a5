package cmd

import (
	"strings"
	"testing"

	"github.com/kvctl/kvctl/transfer"
)

// TestBenchWarnsOfOtherPrograms: the bench warns on stderr, once, when
// other programs kept half a core or more busy during some run, naming
// the most; not below that, nor where the machine did not say, nor with
// --quiet.
func TestBenchWarnsOfOtherPrograms(t *testing.T) {
	cores := func(x float64) *float64 { return &x }
	run := func(others *float64) transfer.BenchResult {
		return transfer.BenchResult{Direction: transfer.DirectionSave, Repeats: 1, Verify: "ok", OthersBusyCores: others}
	}
	cases := []struct {
		name  string
		runs  []transfer.BenchResult
		quiet bool
		want  string // "" for no warning
	}{
		{"quiet machine", []transfer.BenchResult{run(cores(0.12))}, false, ""},
		{"not said", []transfer.BenchResult{run(nil)}, false, ""},
		{"one busy run", []transfer.BenchResult{run(cores(1.04))}, false, "warning: other programs kept up to 1.04 cores busy during the run: "},
		{"a sweep", []transfer.BenchResult{run(cores(0.2)), run(cores(0.5)), run(cores(2.31))}, false, "warning: other programs kept up to 2.31 cores busy during 2 of 3 runs: "},
		{"--quiet", []transfer.BenchResult{run(cores(3))}, true, ""},
	}
	for _, c := range cases {
		ios, out, errOut := NewTestIOStreams("")
		if err := printBench(ios, &globalOptions{Output: "json", Quiet: c.quiet}, len(c.runs) > 1, c.runs, false); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := errOut.String()
		if c.want == "" && got != "" || c.want != "" && (!strings.HasPrefix(got, c.want) || strings.Count(got, "\n") != 1) {
			t.Errorf("%s: stderr %q, want one line starting %q (none when empty)", c.name, got, c.want)
		}
		if c.runs[0].OthersBusyCores != nil && !strings.Contains(out.String(), `"others_busy_cores"`) {
			t.Errorf("%s: the JSON lacks others_busy_cores: %s", c.name, out)
		}
	}
}
