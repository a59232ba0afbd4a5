package engine

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
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

// TestAsyncLoadFetchesWhenItsWorkerStarts: a request whose load waits in
// the queue behind another (one slow load worker) has its pages fetched
// only when the worker starts it; when the lease its lookup took expired
// meanwhile, the pool evicted them, and the request restarts and still
// completes, verified.
func TestAsyncLoadFetchesWhenItsWorkerStarts(t *testing.T) {
	tests := []struct {
		name     string
		leaseTTL time.Duration
		restarts bool
	}{
		{"lease expires in the queue", time.Millisecond, true},
		{"lease outlasts the queue", time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := NewClock()
			p, err := mem.New(mem.Options{Capacity: 64 << 20, Eviction: mem.EvictManual, Now: clk.Now,
				LeaseTTL: tt.leaseTTL, ZeroHighWatermark: true, EvictionRatio: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			cfg := Config{Pool: struct{ pool.Store }{p}, Clock: clk, Verify: true,
				Keys: keys.Settings{Layout: DefaultLayout(16)}, GPU: GPUConfig{Blocks: 40}}
			reqs := sliceSource{
				{ID: "a", Tokens: tokensOf(0, 100), OutputLength: 2},
				{ID: "b", Tokens: tokensOf(5000, 100), OutputLength: 2},
			}
			runOK(t, cfg, reqs) // the pool holds both prompts; nothing evicts
			cfg.Pool, cfg.Connector.AsyncLoad, cfg.Connector.AsyncLoadWorkers = p, true, 1
			cfg.Costs = DefaultCosts()
			cfg.Costs.TransferGBps = 1e-6 // a's load keeps the worker busy for many eviction periods
			rep := runOK(t, cfg, reqs)
			if rep.ParkedLoads < 2 {
				t.Errorf("%d parked loads, want at least 2", rep.ParkedLoads)
			}
			gotRestart := rep.Restarts > 0 && rep.AsyncQueuedLoadFailures > 0
			if gotRestart != tt.restarts || rep.AsyncQueuedLoadFailures > rep.AsyncLoadFailures || rep.AsyncLoadFailures > rep.Restarts {
				t.Errorf("%d restarts, %d async load failures, %d after queueing; want restarts %v, failures after queueing within failures within restarts",
					rep.Restarts, rep.AsyncLoadFailures, rep.AsyncQueuedLoadFailures, tt.restarts)
			}
		})
	}
}

// TestAsyncLoadEmptyTransferCompletesAtOnce: a request offered blocks
// that the pages cannot honour still parks, with nothing to load; its
// empty transfer completes at once, not failed, though the only load
// worker is busy.
func TestAsyncLoadEmptyTransferCompletesAtOnce(t *testing.T) {
	cfg, _ := testConfig(t)
	a := workload.Request{ID: "a", Tokens: tokensOf(0, 36), OutputLength: 2}
	b := workload.Request{ID: "b", Tokens: tokensOf(5000, 20), OutputLength: 2}
	runOK(t, cfg, sliceSource{a, b}) // the pool holds a's 2 blocks and b's 1
	cfg.Clock, cfg.Connector.AsyncLoad, cfg.Connector.AsyncLoadWorkers = NewClock(), true, 1
	cfg.GPU.Blocks = 3 // a's load takes 2 blocks, leaving b 1: room for no loaded block
	cfg.Costs = DefaultCosts()
	cfg.Costs.TransferGBps = 1e-6 // a's load keeps the only worker busy
	e := arrivedEngine(t, cfg, a, b)
	e.nextArrivalMS = math.Inf(1)
	ctx := context.Background()
	if err := e.iteration(ctx); err != nil {
		t.Fatal(err)
	}
	if len(e.async.parked) != 2 {
		t.Fatalf("parked loads after pass 1: %+v, want a's and b's", e.async.parked)
	}
	if pb := e.async.parked[1]; pb.r.userID != "b" || pb.to != pb.from || pb.doneNS != pb.atNS || !pb.landed {
		t.Errorf("b's load = %+v, want empty, landed, done when it parked", pb)
	}
	if got, want := scheduledTokens(t, e), map[string]int{"b": 16}; !cmp.Equal(got, want) {
		t.Errorf("pass 2 scheduled %v, want %v (b back from its empty load, a still loading)", got, want)
	}
	for e.counts.completed < 2 {
		if err := e.iteration(ctx); err != nil {
			t.Fatal(err)
		}
	}
	rep := e.report(ctx, 0)
	if rep.ParkedLoads < 2 || rep.AsyncLoadFailures != 0 || rep.Restarts != 0 || rep.VerifyMismatches != 0 {
		t.Errorf("report: %d parked loads, %d async load failures, %d restarts, %d mismatches; want at least 2, 0, 0, 0",
			rep.ParkedLoads, rep.AsyncLoadFailures, rep.Restarts, rep.VerifyMismatches)
	}
}
