package engine

import (
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
				if n == 0 {
					t.Errorf("owner %d got no request", i)
				}
			}
			if rep.AttentionDP != tt.owners || len(rep.OwnerRequests) != tt.owners || sum != rep.Requests {
				t.Errorf("attention dp %d, owner requests %v; want %d owners sharing the %d requests",
					rep.AttentionDP, rep.OwnerRequests, tt.owners, rep.Requests)
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
		if err := c.route().arrive(workload.Request{ID: "r", Tokens: tokensOf(100*i, 20), OutputLength: 1}); err != nil {
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
