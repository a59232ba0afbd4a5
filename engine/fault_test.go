package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/workload"
)

// biggerWorkload has more pool reuse than testWorkload: more turns, and a
// GPU too small to keep the conversations locally.
var biggerWorkload = workload.Conversations{Conversations: 10, Turns: 5, System: 300, User: 60, Output: 8,
	SystemPrompts: 2, IntervalMS: 30, ThinkMS: 300, Vocab: 1000}

// TestFaultMissingPagesRestart: pages vanish between lookup and load; the
// requests restart, every request completes and nothing loaded is wrong.
func TestFaultMissingPagesRestart(t *testing.T) {
	run := func() Report {
		cfg, p := testConfig(t)
		cs := &checkingStore{Store: p}
		cfg.Pool, cfg.Faults.MissingRate, cfg.Faults.Seed = cs, 0.05, 42
		rep := runOK(t, cfg, biggerWorkload)
		if len(cs.bad) > 0 {
			t.Errorf("%d pages put were never computed, first %q", len(cs.bad), cs.bad[0])
		}
		return rep
	}
	rep := run()
	if rep.Restarts == 0 || rep.FaultMissingPages == 0 || rep.Load.FailedPages == 0 {
		t.Errorf("restarts %d, injected missing pages %d, failed loads %d; want all > 0",
			rep.Restarts, rep.FaultMissingPages, rep.Load.FailedPages)
	}
	again := run()
	if again.Restarts != rep.Restarts || again.FaultMissingPages != rep.FaultMissingPages || again.PoolHitTokens != rep.PoolHitTokens {
		t.Errorf("same seed: restarts %d, missing %d, pool hits %d; first run %d, %d, %d",
			again.Restarts, again.FaultMissingPages, again.PoolHitTokens, rep.Restarts, rep.FaultMissingPages, rep.PoolHitTokens)
	}
}

// TestFaultPutErrors: failed puts are only future misses.
func TestFaultPutErrors(t *testing.T) {
	cfg, _ := testConfig(t)
	clean := runOK(t, cfg, biggerWorkload)
	cfg, _ = testConfig(t)
	cfg.Faults.PutErrorRate, cfg.Faults.Seed = 0.3, 1
	rep := runOK(t, cfg, biggerWorkload)
	if rep.FaultPutErrors == 0 || rep.Restarts != 0 || rep.PoolHitTokens >= clean.PoolHitTokens {
		t.Errorf("put errors %d, restarts %d, pool hits %d (%d without faults); want errors, no restart, fewer hits",
			rep.FaultPutErrors, rep.Restarts, rep.PoolHitTokens, clean.PoolHitTokens)
	}
	if rep.Pool.Keys >= clean.Pool.Keys {
		t.Errorf("pool keys %d with put errors, want fewer than %d", rep.Pool.Keys, clean.Pool.Keys)
	}
}

func TestFaultPoolLatency(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Faults.PoolLatency = 10e3 // 10 µs
	want := runOK(t, func() Config { c, _ := testConfig(t); return c }(), testWorkload)
	got := runOK(t, cfg, testWorkload)
	if got.PoolHitTokens != want.PoolHitTokens || got.TTFTMS != want.TTFTMS {
		t.Errorf("with pool latency: pool hits %d, ttft %+v; want the virtual-time outcome %d, %+v unchanged",
			got.PoolHitTokens, got.TTFTMS, want.PoolHitTokens, want.TTFTMS)
	}
}

// TestTensorParallelReplay holds every rank's shard: lookups, loads and
// saves move every shard, and each shard is verified against its rank.
func TestTensorParallelReplay(t *testing.T) {
	for _, world := range []int{2, 4} {
		cfg, p := testConfig(t)
		cfg.Keys.Layout.World, cfg.Keys.Layout.Ranks = world, nil
		cs := &checkingStore{Store: p}
		cfg.Pool = cs
		first := runOK(t, cfg, testWorkload)
		cfg.Clock = NewClock()
		rep := runOK(t, cfg, testWorkload)
		if rep.World != world || rep.LoadedPages == 0 || rep.PoolHitTokens <= first.PoolHitTokens {
			t.Errorf("world %d: report world %d, loaded %d pages, pool hits %d (first run %d); want loads and more hits",
				world, rep.World, rep.LoadedPages, rep.PoolHitTokens, first.PoolHitTokens)
		}
		if first.SavedPages%int64(world) != 0 || rep.LoadedPages%int64(world) != 0 {
			t.Errorf("world %d: saved %d, loaded %d pages; want multiples of the world", world, first.SavedPages, rep.LoadedPages)
		}
		if len(cs.bad) > 0 || cs.puts == 0 {
			t.Errorf("world %d: %d of %d pages put were not the model's shard, first %v", world, len(cs.bad), cs.puts, cs.bad)
		}
	}
}

// TestTensorParallelMissingPageIsFatal: TP ranks cannot restart alone.
func TestTensorParallelMissingPageIsFatal(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Keys.Layout.World, cfg.Keys.Layout.Ranks = 2, nil
	runOK(t, cfg, testWorkload)
	cfg.Clock, cfg.Faults.MissingRate, cfg.Faults.Seed = NewClock(), 0.2, 5
	_, err := Run(context.Background(), cfg, testWorkload, nil)
	var lf *connector.LoadFailedError
	if !errors.As(err, &lf) || lf.Failed == 0 {
		t.Errorf("TP replay with missing pages = %v, want a fatal LoadFailedError", err)
	}
}
