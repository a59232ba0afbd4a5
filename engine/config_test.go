package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/keys"
)

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		ok   bool
	}{
		{"defaults", func(*Config) {}, true},
		{"no pool", func(c *Config) { c.Pool = nil }, false},
		{"every role", func(c *Config) { c.Role = RoleCapacity }, true},
		{"unknown role", func(c *Config) { c.Role = "reader" }, false},
		{"unknown backoff", func(c *Config) { c.LocalReuseBackoff = "keep" }, false},
		{"negative lookahead", func(c *Config) { c.Lookahead = -1 }, false},
		{"alignment not dividing T", func(c *Config) { c.ReuseMatchAlignment = 5 }, false},
		{"tensor parallel, one rank of two", func(c *Config) { c.Layout = DefaultLayout(32); c.Layout.World = 2 }, false},
		{"tensor parallel, every rank", func(c *Config) {
			c.Layout = DefaultLayout(32)
			c.Layout.World, c.Layout.Ranks = 4, nil
		}, true},
		{"attention dp", func(c *Config) { c.AttentionDP = 4 }, true},
		{"attention dp with tensor parallel", func(c *Config) {
			c.Layout = DefaultLayout(32)
			c.Layout.World, c.Layout.Ranks, c.AttentionDP = 2, nil, 2
		}, false},
		{"no async load worker", func(c *Config) { c.AsyncLoadWorkers = -1 }, false},
		{"eagle3 draft", func(c *Config) { c.Draft, c.MaxDraftLen = "eagle3", 3 }, true},
		{"mtp draft with its lookahead", func(c *Config) { c.Draft, c.MaxDraftLen, c.Lookahead = "mtp", 3, 3 }, true},
		{"mtp draft contradicting the lookahead", func(c *Config) { c.Draft, c.MaxDraftLen, c.Lookahead = "mtp", 3, 1 }, false},
		{"unknown draft", func(c *Config) { c.Draft, c.MaxDraftLen = "medusa", 3 }, false},
		{"draft without a length", func(c *Config) { c.Draft = "eagle3" }, false},
		{"fault rates", func(c *Config) { c.FaultMissingRate, c.FaultPutErrorRate, c.FaultPoolLatency = 0.1, 1, 1 }, true},
		{"missing rate above 1", func(c *Config) { c.FaultMissingRate = 1.5 }, false},
		{"negative put error rate", func(c *Config) { c.FaultPutErrorRate = -0.1 }, false},
		{"negative pool latency", func(c *Config) { c.FaultPoolLatency = -1 }, false},
		{"zero bandwidth", func(c *Config) { c.Costs = Costs{IterationMS: 1} }, false},
		{"negative cost", func(c *Config) { c.Costs = DefaultCosts(); c.Costs.PrefillTokenMS = -1 }, false},
		{"bad layer group", func(c *Config) {
			c.Layout = DefaultLayout(32)
			c.Layout.LayerGroups[0].BytesPerPage = 0
		}, false},
		{"gpu bytes too small", func(c *Config) { c.GPUBlocks, c.GPUBytes = 0, 10 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := testConfig(t)
			cfg.Layout = keys.Layout{}
			tt.edit(&cfg)
			_, err := newEngine(cfg)
			if (err == nil) != tt.ok {
				t.Errorf("newEngine(%s) = %v, want ok %v", tt.name, err, tt.ok)
			}
		})
	}
}

func TestGPUBlocks(t *testing.T) {
	tests := []struct {
		blocks int
		bytes  int64
		want   int
	}{
		{0, 0, DefaultGPUBlocks},
		{100, 1 << 30, 100},
		{0, 1000 * DefaultPageBytes, 1000},
	}
	for _, tt := range tests {
		got, err := Config{GPUBlocks: tt.blocks, GPUBytes: tt.bytes}.gpuBlocks(DefaultPageBytes)
		if err != nil || got != tt.want {
			t.Errorf("gpuBlocks(blocks %d, bytes %d) = %d, %v; want %d", tt.blocks, tt.bytes, got, err, tt.want)
		}
	}
}

func TestPoolDemand(t *testing.T) {
	two := DefaultLayout(32)
	two.Ranks = []int{0, 1}
	two.Replicated = []keys.LayerGroup{{ID: 9, BytesPerPage: 100}}
	tests := []struct {
		name       string
		l          keys.Layout
		tokens     int64
		wantBlocks int64
		wantSizes  []int64
	}{
		{"default layout", DefaultLayout(32), 145_000_000, 145_000_000/32 + 1, []int64{DefaultPageBytes}},
		{"two ranks and a replicated group", two, 64, 3, []int64{DefaultPageBytes, DefaultPageBytes, 100}},
	}
	for _, tt := range tests {
		blocks, sizes := PoolDemand(tt.l, tt.tokens)
		if blocks != tt.wantBlocks || !cmp.Equal(sizes, tt.wantSizes) {
			t.Errorf("PoolDemand(%s, %d) = %d, %v, want %d, %v", tt.name, tt.tokens, blocks, sizes, tt.wantBlocks, tt.wantSizes)
		}
	}
}
