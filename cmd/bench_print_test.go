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

// TestBenchWarnsOfStolenTime: the bench warns on stderr, once, when the
// hypervisor gave a twentieth of a core or more to other guests during
// some run, naming the most; beside the warning of other programs, a line
// each; not below that, nor where the machine did not say, nor with --quiet.
func TestBenchWarnsOfStolenTime(t *testing.T) {
	cores := func(x float64) *float64 { return &x }
	run := func(others, steal *float64) transfer.BenchResult {
		return transfer.BenchResult{Direction: transfer.DirectionLoad, Repeats: 1, Verify: "ok", OthersBusyCores: others, StealCores: steal}
	}
	const stolen = "warning: the hypervisor gave up to "
	cases := []struct {
		name  string
		runs  []transfer.BenchResult
		quiet bool
		want  []string // the lines' starts, in order
	}{
		{"quiet machine", []transfer.BenchResult{run(cores(0), cores(0.04))}, false, nil},
		{"not said", []transfer.BenchResult{run(nil, nil)}, false, nil},
		{"one run", []transfer.BenchResult{run(cores(0), cores(0.05))}, false, []string{stolen + "0.05 cores' time to other guests during the run: "}},
		{"a sweep", []transfer.BenchResult{run(cores(0), cores(0.44)), run(cores(0), cores(0)), run(cores(0), cores(0.13))}, false,
			[]string{stolen + "0.44 cores' time to other guests during 2 of 3 runs: "}},
		{"both", []transfer.BenchResult{run(cores(0.6), cores(0.1))}, false,
			[]string{"warning: other programs kept up to 0.60 cores busy during the run: ", stolen + "0.10 cores' time"}},
		{"--quiet", []transfer.BenchResult{run(cores(0), cores(1))}, true, nil},
	}
	for _, c := range cases {
		ios, _, errOut := NewTestIOStreams("")
		if err := printBench(ios, &globalOptions{Output: "table", Quiet: c.quiet}, len(c.runs) > 1, c.runs, false); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
		if len(c.want) == 0 && errOut.Len() != 0 || len(c.want) != 0 && len(lines) != len(c.want) {
			t.Errorf("%s: stderr %q, want %d line(s) starting %q", c.name, errOut, len(c.want), c.want)
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(lines[i], w) {
				t.Errorf("%s: line %d %q, want it to start %q", c.name, i+1, lines[i], w)
			}
		}
	}
}

// TestBenchTableSaysStolenTime: a single run's table line names the
// hypervisor's time where it took some, and not where it took none.
func TestBenchTableSaysStolenTime(t *testing.T) {
	for _, c := range []struct {
		steal float64
		want  bool
	}{{0, false}, {0.02, true}} {
		steal, others := c.steal, 0.0
		r := transfer.BenchResult{Direction: transfer.DirectionLoad, Repeats: 1, Verify: "ok", OthersBusyCores: &others, StealCores: &steal}
		ios, out, _ := NewTestIOStreams("")
		if err := printBench(ios, &globalOptions{Output: "table", Quiet: true}, false, []transfer.BenchResult{r}, false); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), "; hypervisor took 0.02 cores"); got != c.want {
			t.Errorf("steal %.2f: table %q, want the hypervisor's time said: %v", c.steal, out, c.want)
		}
	}
}
