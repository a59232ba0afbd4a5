package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/workload"
)

// TestAttentionDPReplay: owners share the pool and key space; requests
// spread over them and reuse each other's saves through the pool.
func TestAttentionDPReplay(t *testing.T) {
	tests := []struct {
		name   string
		owners int
		edit   func(*Config)
	}{
		{"two owners", 2, func(*Config) {}},
		{"three owners, async loads, missing pages", 3, func(c *Config) {
			c.Connector.AsyncLoad, c.Faults.MissingRate, c.Faults.Seed = true, 0.05, 11
		}},
		{"two owners, round robin", 2, func(c *Config) { c.Routing = RouteRoundRobin }},
		// kv-aware may leave an owner idle: every conversation shares the
		// owner that cached the system prompt
		{"three owners, kv-aware", 3, func(c *Config) { c.Routing = RouteKVAware }},
		{"three owners, work-aware, async loads", 3, func(c *Config) { c.Routing, c.Connector.AsyncLoad = RouteWorkAware, true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, p := testConfig(t)
			cs := &checkingStore{Store: p}
			cfg.Pool, cfg.AttentionDP = cs, tt.owners
			tt.edit(&cfg)
			rep := runOK(t, cfg, biggerWorkload)
			var sum int64
			for i, n := range rep.OwnerRequests {
				sum += n
				if n == 0 && !strings.Contains(tt.name, "kv-aware") {
					t.Errorf("owner %d got no request", i)
				}
			}
			if rep.AttentionDP != tt.owners || len(rep.OwnerRequests) != tt.owners || sum != rep.Requests {
				t.Errorf("attention dp %d, owner requests %v; want %d owners sharing the %d requests",
					rep.AttentionDP, rep.OwnerRequests, tt.owners, rep.Requests)
			}
			if len(rep.OwnerPrefillTokens) != tt.owners || rep.PrefillPerPass == nil || rep.PrefillPerPass.Imbalance < 1 {
				t.Errorf("owner prefill tokens %v, prefill per pass %+v; want %d owners and an imbalance of at least 1",
					rep.OwnerPrefillTokens, rep.PrefillPerPass, tt.owners)
			}
			if rep.PoolHitTokens == 0 || len(cs.bad) > 0 {
				t.Errorf("%d pool hit tokens, %d uncomputed pages put; want hits and none", rep.PoolHitTokens, len(cs.bad))
			}
		})
	}
}

// TestAttentionDPRouting places each arrival on the least loaded owner.
func TestAttentionDPRouting(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.AttentionDP = 3
	c, err := newCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.close() })
	place := func(i int) {
		t.Helper()
		if _, _, err := c.arrive(context.Background(), workload.Request{ID: "r", Tokens: tokensOf(100*i, 20), OutputLength: 1}, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		place(i)
	}
	if got, want := c.placed, []int64{2, 2, 1}; !cmp.Equal(got, want) {
		t.Errorf("5 requests placed %v, want %v", got, want)
	}
	// owner 2 has the fewest in flight, then owner 0 after a tie
	place(5)
	place(6)
	if got, want := c.placed, []int64{3, 2, 2}; !cmp.Equal(got, want) {
		t.Errorf("2 more requests placed %v, want %v", got, want)
	}
}

// TestRoutingPolicies places a sequence of requests by each policy on
// three owners, after owner 0 served prompt W (its radix tree and the pool
// hold W's four blocks): L, a long prompt; S1..S3, short ones; N, which
// starts with W. Least-loaded and round-robin spread them in turn;
// work-aware keeps S3 off the owner computing L; kv-aware and work-aware
// send N where W is cached (the pool would serve it on any owner, and
// owner 0 has the least pending prefill).
func TestRoutingPolicies(t *testing.T) {
	seq := []workload.Request{
		{ID: "L", Tokens: tokensOf(1000, 400)},
		{ID: "S1", Tokens: tokensOf(2000, 16)},
		{ID: "S2", Tokens: tokensOf(3000, 16)},
		{ID: "S3", Tokens: tokensOf(4000, 16)},
		{ID: "N", Tokens: tokensOf(0, 80)},
	}
	tests := []struct {
		routing Routing
		want    []int
	}{
		{RouteLeastLoaded, []int{1, 2, 0, 1, 2}},
		{RouteRoundRobin, []int{1, 2, 0, 1, 2}},
		{RouteKVAware, []int{1, 2, 0, 1, 0}},
		{RouteWorkAware, []int{1, 2, 0, 2, 0}},
	}
	for _, tt := range tests {
		t.Run(string(tt.routing), func(t *testing.T) {
			c := warmCluster(t, tt.routing, workload.Request{ID: "W", Tokens: tokensOf(0, 64), OutputLength: 1})
			var got []int
			for _, w := range seq {
				w.OutputLength = 1
				e, _, err := c.arrive(context.Background(), w, 0)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, slices.Index(c.owners, e))
			}
			if !cmp.Equal(got, tt.want) {
				t.Errorf("%s placed L, S1, S2, S3, N on owners %v, want %v", tt.routing, got, tt.want)
			}
		})
	}
}

// TestRoundRobinIgnoresLoad: round robin takes the owner in turn however
// many requests it has; least-loaded skips it.
func TestRoundRobinIgnoresLoad(t *testing.T) {
	for _, tt := range []struct {
		routing Routing
		want    int
	}{{RouteLeastLoaded, 1}, {RouteRoundRobin, 0}} {
		cfg, _ := testConfig(t)
		cfg.AttentionDP, cfg.Routing = 2, tt.routing
		c, err := newCluster(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.close() })
		for i := range 2 {
			if err := c.owners[0].arrive(workload.Request{ID: "busy", Tokens: tokensOf(100*i, 20), OutputLength: 1}); err != nil {
				t.Fatal(err)
			}
		}
		e, _, err := c.arrive(context.Background(), workload.Request{ID: "r", Tokens: tokensOf(500, 20), OutputLength: 1}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Index(c.owners, e); got != tt.want {
			t.Errorf("%s with owner 0 busy placed the request on owner %d, want %d", tt.routing, got, tt.want)
		}
	}
}

// warmCluster returns a cluster of three owners routing by routing, after
// it served w (on owner 0) to the end.
func warmCluster(t *testing.T, routing Routing, w workload.Request) *cluster {
	t.Helper()
	cfg, _ := testConfig(t)
	cfg.AttentionDP, cfg.Routing = 3, routing
	c, err := newCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.close() })
	ctx := context.Background()
	if e, _, err := c.arrive(ctx, w, 0); err != nil || e != c.owners[0] {
		t.Fatalf("warm-up request placed on %p (owner 0 %p), error %v", e, c.owners[0], err)
	}
	for !c.idle() {
		if err := stepOwners(ctx, c.owners); err != nil {
			t.Fatal(err)
		}
	}
	return c
}
