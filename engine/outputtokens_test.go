package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Config.OutputTokens sizes each owner's inter-token latency samples for
// its share at the start, and changes nothing in the report, whether the
// count is right, short (the samples grow) or absent.
func TestOutputTokensSizeTheSamples(t *testing.T) {
	for _, tt := range []struct{ owners, tokens, want int }{{1, 1000, 1000}, {4, 1000, 250}, {1, 0, 0}} {
		cfg, _ := testConfig(t)
		cfg.AttentionDP, cfg.OutputTokens = tt.owners, int64(tt.tokens)
		c, err := newCluster(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range c.owners {
			if got := cap(e.lat.itl); got != tt.want {
				t.Errorf("%d owners, %d output tokens: owner %d has room for %d samples, want %d", tt.owners, tt.tokens, i, got, tt.want)
			}
		}
		c.close()
	}
	run := func(outputTokens int64) Report {
		cfg, _ := testConfig(t)
		cfg.OutputTokens = outputTokens
		return runOK(t, cfg, testWorkload)
	}
	base := run(0)
	ignore := cmpopts.IgnoreFields(Report{}, "WallSeconds", "Load", "Save")
	for _, n := range []int64{base.OutputTokens, 3} {
		if diff := cmp.Diff(base, run(n), ignore); diff != "" {
			t.Errorf("OutputTokens %d changed the report (-without +with):\n%s", n, diff)
		}
	}
}
