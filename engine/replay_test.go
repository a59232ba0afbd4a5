package engine

import (
	"context"
	"errors"
	"runtime/debug"
	"testing"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/workload"
)

func TestReplayEndToEnd(t *testing.T) {
	tests := []struct {
		name   string
		config func(*Config)
		raw    bool // no checking wrapper: the mem pool itself
	}{
		{"defaults", func(*Config) {}, false},
		{"device mover, host emulation", func(c *Config) { c.GPU.Device = hostDevice(t) }, false},
		{"device mover, direct loads and saves", func(c *Config) { c.GPU.Device = hostDevice(t) }, true},
		{"device mover, kernel copies", func(c *Config) { c.GPU.Device, c.Connector.CopyMode = hostDevice(t), cuda.ModeKernel }, true},
		{"device mover, staged kernel copies", func(c *Config) {
			c.GPU.Device, c.Connector.CopyMode, c.Connector.StageThroughHost = hostDevice(t), cuda.ModeKernel, true
		}, false},
		{"staged, small batches, two layer groups and a replicated one", func(c *Config) {
			c.Connector.StageThroughHost, c.Connector.StagingBufferBytes, c.Connector.TransferBatchSize = true, 3*256, 5
			c.Keys.Layout.LayerGroups = []keys.LayerGroup{{ID: 0, BytesPerPage: 256}, {ID: 1, BytesPerPage: 72}}
			c.Keys.Layout.Replicated = []keys.LayerGroup{{ID: 2, BytesPerPage: 24}}
		}, false},
		{"chunked: 64-token budget, batch of 3", func(c *Config) { c.Scheduler.MaxNumTokens, c.Scheduler.MaxBatchSize = 64, 3 }, false},
		{"lookahead with aligned backoff", func(c *Config) { c.Keys.Lookahead, c.Scheduler.LocalReuseBackoff = 2, BackoffAlign }, false},
		{"grouped, soft-pinned puts", func(c *Config) { c.Connector.GroupBlocks, c.Connector.SoftPinTTL = true, 60e9 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, p := testConfig(t)
			tt.config(&cfg)
			cs := &checkingStore{Store: p}
			if !tt.raw {
				cfg.Pool = cs
			}
			rep := runOK(t, cfg, testWorkload)
			if rep.Requests != 24 || rep.PoolHitTokens == 0 || rep.SavedPages == 0 || rep.LoadedPages == 0 {
				t.Errorf("report: %d requests, %d pool hit tokens, %d saved and %d loaded pages; want 24 and the rest > 0",
					rep.Requests, rep.PoolHitTokens, rep.SavedPages, rep.LoadedPages)
			}
			if sv := rep.Save; sv.Op != stats.OpSave || sv.StoreCalls == 0 || sv.Bytes == 0 || sv.Wall() <= 0 {
				t.Errorf("report save = op %q, %d store calls, %d bytes, %v; want the saves' statistics", sv.Op, sv.StoreCalls, sv.Bytes, sv.Wall())
			}
			if len(cs.bad) > 0 {
				t.Errorf("%d of %d pages put were not the model's (never computed), first %q", len(cs.bad), cs.puts, cs.bad[0])
			}
			if got := rep.LocalHitTokens + rep.PoolHitTokens + firstComputed(rep); got != rep.PromptTokens {
				t.Errorf("local %d + pool %d + computed-once tokens = %d, want the %d prompt tokens",
					rep.LocalHitTokens, rep.PoolHitTokens, got, rep.PromptTokens)
			}
		})
	}
}

func hostDevice(t *testing.T) cuda.Device {
	t.Helper()
	dev, err := cuda.Open("host")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// firstComputed is the prompt tokens computed the first time: with no
// preemption or restart, every computed prompt token.
func firstComputed(r Report) int64 { return r.ComputedPromptTokens }

func TestSecondReplayReusesPool(t *testing.T) {
	cfg, p := testConfig(t)
	first := runOK(t, cfg, testWorkload)
	second := cfg
	second.Clock = NewClock() // a fresh server; the pool keeps its own clock
	again := runOK(t, second, testWorkload)
	if again.PoolHitTokens <= first.PoolHitTokens || again.ComputedPromptTokens >= first.ComputedPromptTokens {
		t.Errorf("second replay: pool hits %d, computed %d; want more hits than %d and fewer computed than %d",
			again.PoolHitTokens, again.ComputedPromptTokens, first.PoolHitTokens, first.ComputedPromptTokens)
	}
	// Everything the second replay computed was stored by the first.
	if again.Pool.Keys != first.Pool.Keys {
		t.Errorf("pool keys after the second replay = %d, want %d (nothing new)", again.Pool.Keys, first.Pool.Keys)
	}
	// Only the block holding each prompt's last token is computed again.
	if max := again.Requests * int64(cfg.Keys.Layout.TokensPerBlock); again.ComputedPromptTokens > max {
		t.Errorf("second replay computed %d prompt tokens, want at most one block per request (%d)", again.ComputedPromptTokens, max)
	}
	_ = p
}

// TestRestartOnEvictedPage evicts a page between the lookup that found it
// and the load: the request restarts and still completes, verified.
func TestRestartOnEvictedPage(t *testing.T) {
	cfg, p := testConfig(t)
	runOK(t, cfg, testWorkload)
	evicted := 0
	cs := &checkingStore{Store: p}
	cs.onExist = func(k []string, status []int) {
		if evicted > 0 {
			return
		}
		for i := len(k) - 1; i >= 0; i-- {
			if status[i] == 1 {
				codes := make([]pool.Code, 1)
				if err := p.Remove(context.Background(), k[i:i+1], true, codes); err != nil || codes[0] != pool.OK {
					t.Fatalf("evicting %q: %v %v", k[i], err, codes[0])
				}
				evicted++
				return
			}
		}
	}
	second := cfg
	second.Pool, second.Clock = cs, NewClock()
	rep := runOK(t, second, testWorkload)
	if evicted != 1 || rep.Restarts < 1 {
		t.Errorf("evicted %d pages, %d restarts; want 1 and at least 1", evicted, rep.Restarts)
	}
	if rep.Load.FailedPages < 1 {
		t.Errorf("load stats failed pages = %d, want at least 1", rep.Load.FailedPages)
	}
	if rep.PrefixHoles.Lookups <= rep.PrefixHoles.Requests {
		t.Errorf("%d lookups for %d requests, want the restarted request looked up again", rep.PrefixHoles.Lookups, rep.PrefixHoles.Requests)
	}
}

// TestVerificationDetectsCorruption corrupts the first stored page of the
// shared system prompt: the next replay loads it and must count it.
func TestVerificationDetectsCorruption(t *testing.T) {
	cfg, p := testConfig(t)
	runOK(t, cfg, testWorkload)
	var first []int64
	if err := testWorkload.Each(func(r workload.Request) error { first = r.Tokens; return errStopped }); err != nil && err != errStopped {
		t.Fatal(err)
	}
	seed, _ := keys.Seed(keys.SchemeTRTLLM, keys.Scope{}, 0)
	chain, _ := keys.NewChain(seed, 16, 0)
	chain.Extend(first)
	slot := connector.PageSlots(cfg.Keys.Layout, 0)[0]
	key := keys.Namespace{Name: keys.DefaultNamespace, ModelKey: DefaultModelKey}.PageKey(slot.Shard, slot.LayerGroup, 16, chain.Hash(0))
	ctx := context.Background()
	codes := make([]pool.Code, 1)
	if err := p.Remove(ctx, []string{key}, true, codes); err != nil || codes[0] != pool.OK {
		t.Fatalf("removing %q: %v %v", key, err, codes[0])
	}
	garbage := make([]byte, slot.Bytes)
	garbage[7] = 1
	if err := p.Put(ctx, []pool.PutItem{{Key: key, Value: garbage}}, codes); err != nil || codes[0] != pool.OK {
		t.Fatalf("corrupting %q: %v %v", key, err, codes[0])
	}
	second := cfg
	second.Clock = NewClock()
	rep, err := Run(ctx, second, testWorkload, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.VerifyMismatches == 0 {
		t.Error("replay over a corrupted page: 0 mismatches, want > 0")
	}
	second.Verify = false
	if rep, err := Run(ctx, second, testWorkload, nil); err != nil || rep.VerifyMismatches != 0 {
		t.Errorf("replay without verification: %d mismatches, %v; want 0 and nil", rep.VerifyMismatches, err)
	}
}

func TestMemoryLimitRestored(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.MemoryLimit = 1 << 40
	before := debug.SetMemoryLimit(-1)
	gcBefore := debug.SetGCPercent(100)
	debug.SetGCPercent(gcBefore)
	runOK(t, cfg, testWorkload)
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("memory limit after Run = %d, want %d restored", after, before)
	}
	if gc := debug.SetGCPercent(gcBefore); gc != gcBefore {
		t.Errorf("GC percent after Run = %d, want %d restored", gc, gcBefore)
	}
}

func TestProgressReportsTheEnd(t *testing.T) {
	cfg, _ := testConfig(t)
	var last Progress
	calls := 0
	rep, err := Run(context.Background(), cfg, testWorkload, func(p Progress) { last = p; calls++ })
	if err != nil {
		t.Fatal(err)
	}
	want := Progress{Requests: rep.Requests, Completed: rep.Completed, Iterations: rep.Iterations,
		VirtualMS: cfg.Clock.ElapsedMS(), HitRate: rep.HitRate}
	if calls == 0 || last != want {
		t.Errorf("last of %d progress calls = %+v, want %+v", calls, last, want)
	}
}

func TestRunStopsWithTheContext(t *testing.T) {
	cfg, _ := testConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, cfg, testWorkload, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestRoles(t *testing.T) {
	tests := []struct {
		role                 string
		wantSaves, wantLoads bool
		wantLookedUpNonZero  bool
	}{
		{connector.RoleBoth, true, true, true},
		{connector.RoleProducer, true, false, false},
		{connector.RoleConsumer, false, true, true},
		{connector.RoleCapacity, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			cfg, _ := testConfig(t)
			runOK(t, cfg, testWorkload) // fill the pool first

			cfg.Connector.Role, cfg.Clock = tt.role, NewClock()
			rep := runOK(t, cfg, sliceSource{{ID: "new", Tokens: tokensOf(0, 100), OutputLength: 2}})
			rep2 := runOK(t, cfg, testWorkload)
			if got := rep.SavedPages > 0; got != tt.wantSaves {
				t.Errorf("role %s saved %d pages of a new prompt, want saves %v", tt.role, rep.SavedPages, tt.wantSaves)
			}
			if got := rep2.LoadedPages > 0; got != tt.wantLoads {
				t.Errorf("role %s loaded %d pages, want loads %v", tt.role, rep2.LoadedPages, tt.wantLoads)
			}
			if got := rep2.PrefixHoles.LookedUpBlocks > 0; got != tt.wantLookedUpNonZero {
				t.Errorf("role %s looked up %d blocks, want lookups %v", tt.role, rep2.PrefixHoles.LookedUpBlocks, tt.wantLookedUpNonZero)
			}
		})
	}
}
