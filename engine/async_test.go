package engine

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/workload"
)

// TestAsyncLoadParksOutsideTheBatch: a request whose offer loads in the
// background takes no slot and no token until its pages landed.
func TestAsyncLoadParksOutsideTheBatch(t *testing.T) {
	cfg, _ := testConfig(t)
	a := workload.Request{ID: "a", Tokens: tokensOf(0, 100), OutputLength: 2}
	runOK(t, cfg, sliceSource{a}) // the pool holds a's blocks
	cfg.Clock, cfg.Connector.AsyncLoad, cfg.Scheduler.MaxBatchSize = NewClock(), true, 1
	e, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []workload.Request{a, {ID: "b", Tokens: tokensOf(5000, 20), OutputLength: 2}} {
		if err := e.arrive(r); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := scheduledTokens(t, e), map[string]int{"b": 20}; !cmp.Equal(got, want) {
		t.Errorf("pass 1 scheduled %v, want %v (a parked, b in the only slot)", got, want)
	}
	if len(e.async.parked) != 1 || e.async.parked[0].r.userID != "a" || e.async.parked[0].to != 6 {
		t.Fatalf("parked loads after pass 1: %+v, want a's 6 blocks", e.async.parked)
	}
	for e.counts.completed < 2 {
		if err := e.iteration(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	rep := e.report(context.Background(), 0)
	if rep.ParkedLoads != 1 || rep.PoolHitTokens != 96 || rep.AsyncLoadWaitMS <= 0 || rep.VerifyMismatches != 0 {
		t.Errorf("report: %d parked loads, %d pool hit tokens, %v ms parked, %d mismatches; want 1, 96, > 0, 0",
			rep.ParkedLoads, rep.PoolHitTokens, rep.AsyncLoadWaitMS, rep.VerifyMismatches)
	}
}

// TestAsyncLoadReplay replays with async loads, with and without missing
// pages: nothing is lost or corrupted.
func TestAsyncLoadReplay(t *testing.T) {
	tests := []struct {
		name        string
		workers     int
		missingRate float64
	}{
		{"one worker", 1, 0},
		{"three workers", 3, 0},
		{"missing pages", 2, 0.05},
		{"attention dp", 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, p := testConfig(t)
			if tt.name == "attention dp" {
				cfg.AttentionDP = 2 // async loads need a single rank or attention DP
			}
			cs := &checkingStore{Store: p}
			cfg.Pool, cfg.Connector.AsyncLoad, cfg.Connector.AsyncLoadWorkers = cs, true, tt.workers
			cfg.Faults.MissingRate, cfg.Faults.Seed = tt.missingRate, 9
			rep := runOK(t, cfg, biggerWorkload)
			if rep.ParkedLoads == 0 || rep.PoolHitTokens == 0 || rep.AsyncLoadWaitMS <= 0 {
				t.Errorf("%d parked loads, %d pool hit tokens, %v ms parked; want all > 0", rep.ParkedLoads, rep.PoolHitTokens, rep.AsyncLoadWaitMS)
			}
			if tt.missingRate > 0 && (rep.AsyncLoadFailures == 0 || rep.Restarts < rep.AsyncLoadFailures) {
				t.Errorf("%d async load failures, %d restarts; want failures, each a restart", rep.AsyncLoadFailures, rep.Restarts)
			}
			if len(cs.bad) > 0 {
				t.Errorf("%d pages put were never computed, first %q", len(cs.bad), cs.bad[0])
			}
		})
	}
}
