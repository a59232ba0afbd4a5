package engine

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/keys"
)

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		ok   bool
		// also is the sentinel of the package owning the rule, if any.
		also error
	}{
		{"defaults", func(*Config) {}, true, nil},
		{"no pool", func(c *Config) { c.Pool = nil }, false, nil},
		{"every role", func(c *Config) { c.Connector.Role = connector.RoleCapacity }, true, nil},
		{"unknown role", func(c *Config) { c.Connector.Role = "reader" }, false, connector.ErrBadConfig},
		{"unknown backoff", func(c *Config) { c.Scheduler.LocalReuseBackoff = "keep" }, false, nil},
		{"negative lookahead", func(c *Config) { c.Keys.Lookahead = -1 }, false, keys.ErrBadSettings},
		{"alignment not dividing T", func(c *Config) { c.Scheduler.ReuseMatchAlignment = 5 }, false, nil},
		{"tensor parallel, one rank of two", func(c *Config) { c.Keys.Layout = DefaultLayout(32); c.Keys.Layout.World = 2 }, false, nil},
		{"tensor parallel, every rank", func(c *Config) {
			c.Keys.Layout = DefaultLayout(32)
			c.Keys.Layout.World, c.Keys.Layout.Ranks = 4, nil
		}, true, nil},
		{"attention dp", func(c *Config) { c.AttentionDP = 4 }, true, nil},
		{"attention dp with tensor parallel", func(c *Config) {
			c.Keys.Layout = DefaultLayout(32)
			c.Keys.Layout.World, c.Keys.Layout.Ranks, c.AttentionDP = 2, nil, 2
		}, false, nil},
		{"work-aware routing", func(c *Config) { c.AttentionDP, c.Routing = 2, RouteWorkAware }, true, nil},
		{"unknown routing", func(c *Config) { c.AttentionDP, c.Routing = 2, "random" }, false, nil},
		{"kv-aware routing without attention dp", func(c *Config) { c.Routing = RouteKVAware }, false, nil},
		{"closed loop", func(c *Config) { c.Concurrency = 480 }, true, nil},
		{"negative concurrency", func(c *Config) { c.Concurrency = -1 }, false, nil},
		{"no async load worker", func(c *Config) { c.Connector.AsyncLoadWorkers = -1 }, false, nil},
		{"async load with attention dp", func(c *Config) { c.Connector.AsyncLoad, c.AttentionDP = true, 2 }, true, nil},
		{"async load with tensor parallel", func(c *Config) {
			c.Keys.Layout = DefaultLayout(32)
			c.Keys.Layout.World, c.Keys.Layout.Ranks, c.Connector.AsyncLoad = 2, nil, true
		}, false, nil},
		{"eagle3 draft", func(c *Config) { c.Draft.Kind, c.Draft.MaxLen = "eagle3", 3 }, true, nil},
		{"mtp draft with its lookahead", func(c *Config) { c.Draft.Kind, c.Draft.MaxLen, c.Keys.Lookahead = "mtp", 3, 3 }, true, nil},
		{"mtp draft contradicting the lookahead", func(c *Config) { c.Draft.Kind, c.Draft.MaxLen, c.Keys.Lookahead = "mtp", 3, 1 }, false, nil},
		{"unknown draft", func(c *Config) { c.Draft.Kind, c.Draft.MaxLen = "medusa", 3 }, false, nil},
		{"draft without a length", func(c *Config) { c.Draft.Kind = "eagle3" }, false, nil},
		{"fault rates", func(c *Config) { c.Faults.MissingRate, c.Faults.PutErrorRate, c.Faults.PoolLatency = 0.1, 1, 1 }, true, nil},
		{"missing rate above 1", func(c *Config) { c.Faults.MissingRate = 1.5 }, false, connector.ErrBadConfig},
		{"negative put error rate", func(c *Config) { c.Faults.PutErrorRate = -0.1 }, false, connector.ErrBadConfig},
		{"negative pool latency", func(c *Config) { c.Faults.PoolLatency = -1 }, false, connector.ErrBadConfig},
		{"zero bandwidth", func(c *Config) { c.Costs = Costs{IterationMS: 1} }, false, nil},
		{"negative cost", func(c *Config) { c.Costs = DefaultCosts(); c.Costs.PrefillTokenMS = -1 }, false, nil},
		{"bad layer group", func(c *Config) {
			c.Keys.Layout = DefaultLayout(32)
			c.Keys.Layout.LayerGroups[0].BytesPerPage = 0
		}, false, keys.ErrBadSettings},
		{"gpu bytes too small", func(c *Config) { c.GPU.Blocks, c.GPU.Bytes = 0, 10 }, false, nil},
		{"negative gpu blocks", func(c *Config) { c.GPU.Blocks = -1 }, false, nil},
		{"gpu blocks 2^61", func(c *Config) { c.GPU.Blocks = 1 << 61 }, false, nil},
		{"negative staging bytes", func(c *Config) { c.Connector.StagingBufferBytes = -1 }, false, nil},
		{"negative transfer batch", func(c *Config) { c.Connector.TransferBatchSize = -1 }, false, nil},
		{"negative soft pin", func(c *Config) { c.Connector.SoftPinTTL = -1 }, false, nil},
		{"negative max batch size", func(c *Config) { c.Scheduler.MaxBatchSize = -1 }, false, nil},
		{"negative offer deferrals", func(c *Config) { c.Scheduler.MaxOfferDeferrals = -1 }, false, nil},
		{"negative stats interval", func(c *Config) { c.StatsInterval = -1 }, false, nil},
		{"negative attention dp", func(c *Config) { c.AttentionDP = -1 }, false, nil},
		{"attention dp 2^61", func(c *Config) { c.AttentionDP = 1 << 61 }, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := testConfig(t)
			cfg.Keys.Layout = keys.Layout{}
			tt.edit(&cfg)
			_, err := newEngine(cfg)
			if (err == nil) != tt.ok {
				t.Errorf("newEngine(%s) = %v, want ok %v", tt.name, err, tt.ok)
			}
			if err != nil && (!errors.Is(err, ErrBadConfig) || tt.also != nil && !errors.Is(err, tt.also)) {
				t.Errorf("newEngine(%s) = %v, want an error matching ErrBadConfig and %v", tt.name, err, tt.also)
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
		if got := (GPUConfig{Blocks: tt.blocks, Bytes: tt.bytes}).blocks(DefaultPageBytes); got != tt.want {
			t.Errorf("GPUConfig{Blocks: %d, Bytes: %d}.blocks(%d) = %d, want %d", tt.blocks, tt.bytes, DefaultPageBytes, got, tt.want)
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

func TestConfigValidateWithoutPool(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("Config{}.Validate() = %v, want nil (the pool is Run's to check)", err)
	}
	err := Config{Faults: connector.Faults{MissingRate: 1.5}}.Validate()
	if !errors.Is(err, ErrBadConfig) || !errors.Is(err, connector.ErrBadConfig) {
		t.Errorf("Validate(missing rate 1.5) = %v, want ErrBadConfig and connector.ErrBadConfig", err)
	}
	if _, err := Run(t.Context(), Config{}, sliceSource{}, nil); !errors.Is(err, ErrBadConfig) {
		t.Errorf("Run(no pool) = %v, want ErrBadConfig", err)
	}
}

func TestKeysWithDefaultsNamespace(t *testing.T) {
	tests := []struct {
		in, want keys.Namespace
	}{
		{keys.Namespace{}, keys.Namespace{Name: keys.DefaultNamespace, ModelKey: DefaultModelKey}},
		{keys.Namespace{ModelKey: "m"}, keys.Namespace{ModelKey: "m"}},
		{keys.Namespace{Name: "ns"}, keys.Namespace{Name: "ns", ModelKey: DefaultModelKey}},
	}
	for _, tt := range tests {
		if got := keysWithDefaults(keys.Settings{Namespace: tt.in}).Namespace; got != tt.want {
			t.Errorf("keysWithDefaults(%+v).Namespace = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
