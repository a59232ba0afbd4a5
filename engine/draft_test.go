package engine

import (
	"strings"
	"testing"

	"github.com/kvctl/kvctl/workload"
)

// contextOnly is a multi-turn workload whose requests generate one token
// each, as on a context-only server.
var contextOnly = workload.Conversations{Conversations: 6, Turns: 4, System: 200, User: 40, Output: 1,
	SystemPrompts: 1, IntervalMS: 50, ThinkMS: 400, Vocab: 1000}

// TestSpeculativePrefill keys blocks with the draft's lookahead (another
// key space than the plain keys) and serves context-only requests only.
func TestSpeculativePrefill(t *testing.T) {
	for _, draft := range []string{"mtp", "eagle3"} {
		t.Run(draft, func(t *testing.T) {
			cfg, p := testConfig(t)
			cs := &checkingStore{Store: p}
			cfg.Pool, cfg.Draft.Kind, cfg.Draft.MaxLen, cfg.Scheduler.LocalReuseBackoff = cs, draft, 2, BackoffAlign
			first := runOK(t, cfg, contextOnly)
			cfg.Clock = NewClock()
			again := runOK(t, cfg, contextOnly)
			if again.PoolHitTokens <= first.PoolHitTokens || len(cs.bad) > 0 {
				t.Errorf("second replay %d pool hit tokens (first %d), %d uncomputed puts; want more hits, none",
					again.PoolHitTokens, first.PoolHitTokens, len(cs.bad))
			}
			plain := cfg
			plain.Draft, plain.Keys.Lookahead, plain.Clock = DraftConfig{}, 0, NewClock()
			if rep := runOK(t, plain, contextOnly); rep.PoolHitTokens >= again.PoolHitTokens {
				t.Errorf("plain keys over a pool of %s keys: %d pool hit tokens, want fewer than %d", draft, rep.PoolHitTokens, again.PoolHitTokens)
			}
		})
	}
}

func TestSpeculativePrefillRefusesGeneration(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Draft.Kind, cfg.Draft.MaxLen = "eagle3", 1
	src := sliceSource{
		{ID: "ctx", Tokens: tokensOf(0, 50), OutputLength: 1},
		{ID: "gen", Tokens: tokensOf(0, 50), OutputLength: 4},
	}
	rep, err := Run(t.Context(), cfg, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Completed != 1 || rep.Failed != 1 || rep.RefusedNotContextOnly != 1 || len(rep.FailedRequests) != 1 ||
		rep.FailedRequests[0].ID != "gen" || !strings.Contains(rep.FailedRequests[0].Error, "context-only") {
		t.Errorf("report: %d completed, %d failed, %d refused, %+v; want gen refused as not context-only",
			rep.Completed, rep.Failed, rep.RefusedNotContextOnly, rep.FailedRequests)
	}
}
