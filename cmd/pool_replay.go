package cmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/pool/replay"
	"github.com/kvctl/kvctl/size"
	"github.com/spf13/cobra"
)

// poolReplayOptions are pool replay's flags and argument.
type poolReplayOptions struct {
	File string // the argument
	Runs int
	Seed uint64
}

func newPoolReplayCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolReplayOptions{}
	c := &cobra.Command{
		Use:   "replay FILE [--runs N] [--seed S]",
		Short: "Replay a recorded operation log against an embedded pool set up as the master was",
		Long: `Replay the operation log of FILE (puts, leasing exists, gets, removes, sleeps,
snapshots) against an embedded pool of the file's segment size and master flags
(lease TTL, eviction ratio, high watermark), on a virtual clock that follows its
sleeps, and print which keys each run leaves present and which it evicted: what
a Mooncake master would evict after this log. --runs N replays it N times with
seeds S, S+1, ... (the master's random shard walks); the same seed gives the
same outcome.

When FILE holds runs recorded on a real master, each run is compared with them:
the recorded run it equals (keys present, evicted and failed to put; per-op
codes and snapshots where recorded), and whether the recorded runs were all
alike. The format and a minimal file: docs/pools.md.

Exit codes: 2 for a bad file (the message names the file, the op's index and
the field) or bad flags, 3 when the recorded runs were all alike and a run
here differs from them (the message names the first difference).`,
		Example: "$ kvctl pool replay testdata/mooncake-real/eviction-E1.json\n" +
			"$ kvctl pool replay ops.json --runs 10 --seed 100 -o json",
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			if opts.Runs < 1 || opts.Runs > maxReplayRuns {
				return usagef("--runs %d is outside 1..%d", opts.Runs, maxReplayRuns)
			}
			opts.File = args[0]
			return runPoolReplay(c.Context(), ios, g, opts)
		},
	}
	c.Flags().IntVar(&opts.Runs, "runs", 1, fmt.Sprintf("replay the log this many times, each on a fresh pool, 1..%d", maxReplayRuns))
	c.Flags().Uint64Var(&opts.Seed, "seed", 0, "seed of the first run (run i has seed S+i)")
	return c
}

// runPoolReplay replays the file's log, prints the runs and, when the
// file's recorded runs were all alike, fails unless every run equals them.
func runPoolReplay(ctx context.Context, ios *IOStreams, g *globalOptions, o *poolReplayOptions) error {
	rec, err := replay.Load(o.File)
	if err != nil {
		return err
	}
	rep, outcomes, err := replayRuns(ctx, rec, o)
	if err != nil {
		return err
	}
	if g.Output == "json" {
		err = writeJSON(ios.Out, rep)
	} else {
		err = printPoolReplay(ios, rec, rep)
	}
	if err != nil {
		return err
	}
	return verifyReplay(rec, rep, outcomes)
}

// poolReplayJSON is pool replay -o json.
type poolReplayJSON struct {
	Scenario string              `json:"scenario,omitempty"`
	Runs     []poolReplayRunJSON `json:"runs"`
	Compare  *poolReplayCompare  `json:"compare,omitempty"`
}

// poolReplayRunJSON is one run: its seed and what it left.
type poolReplayRunJSON struct {
	Seed         uint64              `json:"seed"`
	PresentAfter []string            `json:"present_after"`
	Evicted      []string            `json:"evicted"`
	PutFailures  []replay.PutFailure `json:"put_failures"`
	Snapshots    map[string][]string `json:"snapshots,omitempty"`
}

// poolReplayCompare is how the runs compare with the file's recorded runs.
type poolReplayCompare struct {
	RecordedRuns      int  `json:"recorded_runs"`
	RecordedInvariant bool `json:"recorded_invariant"`
	// Matching is, per run, the index of the first recorded run it
	// equals, or nil.
	Matching []*int `json:"matching"`
	AllMatch bool   `json:"all_match"`
}

// maxReplayRuns is the most --runs: every run's outcome is kept to compare.
const maxReplayRuns = 10000

// replayRuns replays rec o.Runs times and compares the outcomes with the
// recorded runs, if any.
func replayRuns(ctx context.Context, rec *replay.Recording, o *poolReplayOptions) (poolReplayJSON, []replay.Outcome, error) {
	rep := poolReplayJSON{Scenario: rec.Scenario}
	var outcomes []replay.Outcome
	for i := range o.Runs {
		seed := o.Seed + uint64(i)
		out, err := replay.Run(ctx, rec, seed, openReplayPool)
		if err != nil {
			return rep, nil, fmt.Errorf("%s, seed %d: %w", o.File, seed, err)
		}
		outcomes = append(outcomes, out)
		rep.Runs = append(rep.Runs, poolReplayRunJSON{seed, out.PresentAfter, out.Evicted, out.PutFailures, out.Snapshots})
	}
	if len(rec.Runs) > 0 {
		rep.Compare = compareReplay(rec, outcomes)
	}
	return rep, outcomes, nil
}

// compareReplay finds, for each outcome, the recorded run it equals.
func compareReplay(rec *replay.Recording, outcomes []replay.Outcome) *poolReplayCompare {
	_, invariant := rec.Invariant()
	c := &poolReplayCompare{RecordedRuns: len(rec.Runs), RecordedInvariant: invariant, AllMatch: true}
	for _, out := range outcomes {
		var match *int
		for i, r := range rec.Runs {
			if replay.Mismatch(r, out) == nil {
				match = &i
				break
			}
		}
		c.Matching = append(c.Matching, match)
		c.AllMatch = c.AllMatch && match != nil
	}
	return c
}

// verifyReplay fails with a verification error when the recorded runs
// were all alike and a run differs from them.
func verifyReplay(rec *replay.Recording, rep poolReplayJSON, outcomes []replay.Outcome) error {
	want, invariant := rec.Invariant()
	if !invariant {
		return nil
	}
	for i, out := range outcomes {
		if err := replay.Mismatch(want, out); err != nil {
			return &verifyError{err: fmt.Errorf("seed %d differs from the %d recorded runs, which were all alike: %w",
				rep.Runs[i].Seed, len(rec.Runs), err)}
		}
	}
	return nil
}

// printPoolReplay prints the runs as a table and the comparison with the
// recorded runs as a sentence.
func printPoolReplay(ios *IOStreams, rec *replay.Recording, rep poolReplayJSON) error {
	if err := printReplaySetup(ios, rec); err != nil {
		return err
	}
	headers := []string{"seed", "present", "evicted", "put failures"}
	if rep.Compare != nil {
		headers = append(headers, "recorded run")
	}
	tp := newTablePrinter(ios, append(headers, "evicted keys")...)
	for i, r := range rep.Runs {
		cells := []any{r.Seed, len(r.PresentAfter), len(r.Evicted), len(r.PutFailures)}
		if rep.Compare != nil {
			cells = append(cells, matchCell(rep.Compare.Matching[i]))
		}
		tp.addRow(append(cells, compactKeys(r.Evicted, 12))...)
	}
	if err := tp.render(); err != nil {
		return err
	}
	if rep.Compare != nil {
		_, err := fmt.Fprintln(ios.Out, compareSentence(rep.Compare))
		return err
	}
	return nil
}

// printReplaySetup names the scenario and the pool it ran on.
func printReplaySetup(ios *IOStreams, rec *replay.Recording) error {
	f, err := rec.Flags()
	if err != nil {
		return err
	}
	name := ""
	if rec.Scenario != "" {
		name = "scenario " + rec.Scenario + ": "
	}
	_, err = fmt.Fprintf(ios.Out, "%s%d ops; one segment of %s, lease TTL %v, eviction ratio %v, high watermark %v\n",
		name, len(rec.Ops), size.Human(rec.SegmentBytes), f.LeaseTTL, f.EvictionRatio, f.HighWatermark)
	return err
}

func matchCell(m *int) string {
	if m == nil {
		return "none"
	}
	return strconv.Itoa(*m)
}

// compareSentence says how the runs compare with the recorded ones.
func compareSentence(c *poolReplayCompare) string {
	matched := 0
	for _, m := range c.Matching {
		if m != nil {
			matched++
		}
	}
	if c.RecordedInvariant && matched == len(c.Matching) {
		return fmt.Sprintf("recorded: %d runs, all alike; every run here equals them", c.RecordedRuns)
	}
	if c.RecordedInvariant {
		return fmt.Sprintf("recorded: %d runs, all alike; %d of %d runs here differ from them", c.RecordedRuns, len(c.Matching)-matched, len(c.Matching))
	}
	return fmt.Sprintf("recorded: %d runs, not all alike; %d of %d runs here equal one of them", c.RecordedRuns, matched, len(c.Matching))
}

// compactKeys lists keys, writing a run of three or more keys that differ
// only in a numeric suffix that counts up by one (k0000 k0001 ... k0046)
// as k0000..k0046, and at most max such items.
func compactKeys(keys []string, max int) string {
	var items []string
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && follows(keys[j-1], keys[j]) {
			j++
		}
		if j-i < 3 {
			items = append(items, keys[i:j]...)
		} else {
			items = append(items, keys[i]+".."+keys[j-1])
		}
		i = j
	}
	if len(items) == 0 {
		return "-"
	}
	if len(items) > max {
		return fmt.Sprintf("%s and %d more", strings.Join(items[:max], " "), len(items)-max)
	}
	return strings.Join(items, " ")
}

// follows reports whether b is a with its numeric suffix, of the same
// width, one higher.
func follows(a, b string) bool {
	pa, na, okA := numericSuffix(a)
	pb, nb, okB := numericSuffix(b)
	return okA && okB && pa == pb && len(a) == len(b) && nb == na+1
}

// numericSuffix splits s into a prefix and the number its trailing digits
// spell.
func numericSuffix(s string) (string, uint64, bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.ParseUint(s[i:], 10, 64)
	return s[:i], n, err == nil
}
