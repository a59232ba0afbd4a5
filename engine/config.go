package engine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/internal/sysmem"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/size"
)

// Defaults of Config.
const (
	// DefaultTokensPerBlock is T when the layout leaves it zero.
	DefaultTokensPerBlock = 32
	// DefaultPageBytes is the page size of the default layout's single
	// layer group: keys.DefaultPageBytes, the one default of every command.
	// What is checked is that every byte of every page makes the round
	// trip, which a small page shows as well as a large one, while the
	// pool's memory is what bounds a replay: each stored page also costs
	// about 250 bytes of key and index in the embedded pool. A replay of
	// the 145M-token Mooncake conversation trace (~3M pages at T=32) is run
	// with 128-byte pages (--layer-group 0:128), whose 1.1 GB live fit in a
	// Go memory limit of 1.7 GiB (Config.MemoryLimit).
	DefaultPageBytes = keys.DefaultPageBytes
	// DefaultGPUBlocks is the number of KV blocks (pages per layer group)
	// when neither GPU.Blocks nor GPU.Bytes is set: 1M tokens at T=32.
	DefaultGPUBlocks = 32768
	// DefaultMaxBatchSize and DefaultMaxNumTokens are TensorRT-LLM's
	// defaults of max_batch_size and max_num_tokens.
	DefaultMaxBatchSize = 2048
	DefaultMaxNumTokens = 8192
	// DefaultModelKey is the model key of the default namespace.
	DefaultModelKey = "kvctl-serve"
	// DefaultEvictEvery is Config.EvictEvery when zero: the Mooncake
	// master's eviction period.
	DefaultEvictEvery = 10 * time.Millisecond
	// SuggestedMemoryLimit is a Config.MemoryLimit for serve: a replay of
	// the 145M-token Mooncake conversation trace with the default layout
	// and an embedded pool holds about 1.1 GB live and peaks at about
	// 1.4 GiB resident under this limit (docs/benchmarks.md).
	SuggestedMemoryLimit = 1700 << 20
)

// ErrBadConfig is matched (errors.Is) by every error of a Config's
// validation: settings the engine cannot run with, such as a rate outside
// [0, 1] or attention data parallelism under tensor parallelism. Those
// errors also match the sentinel of the package that owns the rule
// (keys.ErrBadSettings, connector.ErrBadConfig) where there is one.
var ErrBadConfig = errors.New("bad engine config")

// Config configures a replay. Zero fields take the documented defaults;
// each group of settings is a struct validated where it is defined.
type Config struct {
	// Pool is the KV-cache pool (required). See PoolDemand for sizing an
	// embedded pool.
	Pool pool.Store
	// Keys is the key recipe. A zero Keys.Layout is DefaultLayout of its
	// T; a zero World means 1, and empty Ranks every rank: World N > 1 is
	// tensor parallelism in one process, the engine holding every rank's
	// shard of each page (Ranks empty or every rank 0..N-1). Lookups then
	// need every shard, saves and loads move every shard, and a page
	// missing at load time is fatal (connector.LoadFailedError). A zero
	// Keys.Namespace is keys.DefaultNamespace with DefaultModelKey; an
	// empty ModelKey alone is DefaultModelKey, and the name is spelled as
	// given. Keys.Scope is not used:
	// every request brings its own scope (workload.Request.Scope).
	Keys keys.Settings
	// Scheduler bounds and orders the iterations.
	Scheduler SchedulerConfig
	// Connector configures the connector's two halves.
	Connector ConnectorConfig
	// Faults are pool faults injected into the connector
	// (connector.FaultMover, connector.SlowProber); owner i of an
	// attention-DP run draws with Seed+i. A page gone missing at load time
	// restarts a single-rank request and stops a TP run; a failed put is
	// only a future miss.
	Faults connector.Faults
	// GPU is the KV cache's memory and the device pages move through.
	GPU GPUConfig
	// Draft is a one-model draft on a context-only server (speculative
	// prefill).
	Draft DraftConfig
	// Costs model the time of an iteration; a zero Costs is Model's
	// preset (ModelCosts).
	Costs Costs
	// Model names the preset Costs came from or were changed from, for
	// the report; empty is DefaultModel.
	Model string

	// AttentionDP, when above 1, runs that many attention-DP owners, each
	// with its own KV cache of GPU blocks, scheduler queues, batch and
	// connector halves, sharing the pool and one key space (w1r0); a
	// router places each request on the owner with the fewest requests in
	// flight, or as Routing says. The owners run each pass in lock step in
	// one goroutine (deterministic); a pass costs the slowest owner's
	// time. A missing page restarts the request on its owner. Not with a
	// Keys.Layout.World above 1.
	AttentionDP int
	// Routing is the attention-DP router's policy (default
	// RouteLeastLoaded); another needs AttentionDP above 1.
	Routing Routing
	// Concurrency, when positive, replays closed loop: that many clients,
	// each sending the source's next request when its last one finished,
	// at that moment of the modelled clock (the requests' arrival times
	// are ignored), as serving benchmarks run. Zero replays open loop, at
	// the arrival times. Run only: NewLive refuses it.
	Concurrency int
	// Disagg, when on, runs disaggregated: context and generation servers
	// with a modelled KV transfer between them (DisaggConfig). Run only.
	Disagg DisaggConfig
	// Clock is the virtual clock; nil makes a fresh one. Share it with the
	// pool (its Now, e.g. mem.Options.Now) so that leases age in virtual
	// time.
	Clock *Clock
	// EvictEvery runs the pool's eviction step (a pool.Evicter in manual
	// eviction mode, such as a mem pool) every so much virtual time
	// (default DefaultEvictEvery).
	EvictEvery time.Duration
	// Verify compares every page loaded from the pool with the model's.
	Verify bool
	// StatsInterval emits statistics lines through StatsLine at most once
	// per interval of virtual time; zero emits none. StatsLine also
	// receives warnings (the first pool call of each kind that failed);
	// nil drops both.
	StatsInterval time.Duration
	StatsLine     func(line string)
	// Observer, when not nil, sees every lookup and first token of the
	// replay (a pool-size sweep's burst detection).
	Observer Observer
	// MemoryLimit, when positive, is the least Go runtime soft memory
	// limit during the run (runtime/debug.SetMemoryLimit), with the GOGC
	// percentage off so that the collector runs only as the heap nears the
	// limit; both are restored afterwards. A run whose pages (its GPU
	// pages, and an embedded pool's capacity) take more raises the limit to
	// them and a quarter more. The pool's pages and index are long-lived:
	// without a limit the collector lets the heap grow to twice them, and
	// with GOGC on it rescans them far more often (HoldMemory). See
	// SuggestedMemoryLimit.
	MemoryLimit int64
	// OutputTokens, when positive, is how many output tokens the source's
	// requests ask for in all (a count the caller made, as serve does
	// while it sizes the pool). Each owner's inter-token latency samples,
	// one a generated token, are then made for its share at the start
	// instead of growing by doubling: with the collector off the grown
	// ones stay, 45 MB allocated for the 16.5 MB the conversation trace
	// keeps. A share outgrown grows as before.
	OutputTokens int64
	// RemovePages removes, when the run ends (also when interrupted), every
	// page its saves stored (put OK), with force, so that the run leaves
	// the pool as it found it; pages other writers put are kept
	// (Report.PoolKeysRemoved).
	RemovePages bool
}

// DefaultLayout is the layout of a zero Config.Keys.Layout with T tokens
// per block (DefaultTokensPerBlock when t is 0).
func DefaultLayout(t int) keys.Layout {
	return keys.Layout{TokensPerBlock: cmp.Or(t, DefaultTokensPerBlock),
		LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: DefaultPageBytes}}, World: 1, Ranks: []int{0}}
}

// Validate fills the defaults of a copy of c and checks every setting but
// Pool, which Run and NewLive require: what they would refuse, found
// before a pool or a device is opened. Its errors match ErrBadConfig.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

// forRun is c with its defaults, checked, with a pool.
func (c Config) forRun() (Config, error) {
	if c.Pool == nil {
		return c, &configError{errors.New("no pool")}
	}
	return c.withDefaults()
}

// withDefaults fills zero fields and validates all but the pool.
func (c Config) withDefaults() (Config, error) {
	c.Keys = keysWithDefaults(c.Keys)
	c.Scheduler = c.Scheduler.withDefaults()
	c.Connector = c.Connector.withDefaults()
	c.GPU.Regions = cmp.Or(c.GPU.Regions, DefaultRegions)
	c.EvictEvery = cmp.Or(c.EvictEvery, DefaultEvictEvery)
	c.Routing = cmp.Or(c.Routing, RouteLeastLoaded)
	c.Disagg = c.Disagg.withDefaults()
	c.Model = cmp.Or(c.Model, DefaultModel)
	if c.Costs == (Costs{}) {
		var err error
		if c.Costs, err = ModelCosts(c.Model); err != nil {
			return c, &configError{err}
		}
	}
	if c.Clock == nil {
		c.Clock = NewClock()
	}
	if err := c.validate(); err != nil {
		return c, &configError{err}
	}
	c.GPU.Blocks = c.GPU.blocks(blockBytes(c.Keys.Layout))
	if err := c.pageMemoryFits(); err != nil {
		return c, &configError{err}
	}
	return c, nil
}

// pageMemoryFits refuses GPU page memory that the machine cannot hold:
// the engine keeps every rank's and every attention-DP owner's pages in
// host memory (pageMemory), so --gpu-blocks or --gpu-bytes beyond it would
// end the run out of memory before its first request.
func (c Config) pageMemoryFits() error {
	perBlock := blockBytes(c.Keys.Layout) * int64(len(c.Keys.Layout.Ranks)) * int64(max(1, c.AttentionDP))
	blocks := int64(c.GPU.Blocks)
	if perBlock > 0 && blocks > math.MaxInt64/perBlock {
		return fmt.Errorf("gpu blocks %d of %d bytes each overflow 64 bits", blocks, perBlock)
	}
	if need := blocks * perBlock; !sysmem.Fits(need) {
		return fmt.Errorf("gpu pages of %d blocks need %s of host memory (the engine keeps its GPU pages there); this machine has %s", blocks, size.Human(need), size.Human(sysmem.Total()))
	}
	return nil
}

// keysWithDefaults fills the zero layout, world, ranks and model key, and
// the default namespace name when no namespace was given at all (a name
// given as "" is spelled as given, as upstream spells it).
func keysWithDefaults(k keys.Settings) keys.Settings {
	if len(k.Layout.LayerGroups)+len(k.Layout.Replicated) == 0 {
		k.Layout = DefaultLayout(k.Layout.TokensPerBlock)
	}
	k.Layout.World = cmp.Or(k.Layout.World, 1)
	if len(k.Layout.Ranks) == 0 {
		k.Layout.Ranks = allRanks(k.Layout.World)
	}
	if k.Namespace == (keys.Namespace{}) {
		k.Namespace.Name = keys.DefaultNamespace // no namespace given at all
	}
	k.Namespace.ModelKey = cmp.Or(k.Namespace.ModelKey, DefaultModelKey)
	return k
}

// allRanks is 0..world-1.
func allRanks(world int) []int {
	out := make([]int, max(1, world))
	for i := range out {
		out[i] = i
	}
	return out
}

// validate checks c, defaults filled: each group where it is defined,
// what spans groups here; the draft also sets Keys.Lookahead. It returns
// the first error.
func (c *Config) validate() error {
	var err error
	if c.Keys.Lookahead, err = c.Draft.lookahead(c.Keys.Lookahead); err != nil {
		return err
	}
	if err := c.Keys.Validate(); err != nil {
		return err
	}
	l := c.Keys.Layout
	switch {
	case len(l.Ranks) != l.World:
		return fmt.Errorf("world %d needs every rank 0..%d in one process, got ranks %v", l.World, l.World-1, l.Ranks)
	case c.AttentionDP < 0 || c.AttentionDP > keys.MaxWorld:
		return fmt.Errorf("attention dp %d is outside 0..%d", c.AttentionDP, keys.MaxWorld)
	case c.AttentionDP > 1 && l.World > 1:
		return fmt.Errorf("attention dp %d and tp %d cannot go together: attention-DP owners hold whole pages (w1r0)", c.AttentionDP, l.World)
	case c.Connector.AsyncLoad && l.World > 1:
		// mooncake_store scheduler.py and worker.py: their constructors
		// raise NotImplementedError for async_load without attention DP
		// on more than one rank.
		return fmt.Errorf("async load with tp %d is refused, as upstream's mooncake_store connector refuses it (NotImplementedError): async_load needs attention DP or a single rank", l.World)
	case c.Concurrency < 0:
		return fmt.Errorf("concurrency %d is negative", c.Concurrency)
	case c.StatsInterval < 0:
		return fmt.Errorf("stats interval %v is negative", c.StatsInterval)
	}
	return cmp.Or(c.Disagg.validate(c), c.Routing.validate(max(c.AttentionDP, c.Disagg.Context)), c.Scheduler.validate(l.TokensPerBlock), c.Connector.validate(), c.Faults.Validate(),
		c.GPU.validate(blockBytes(l)), c.Costs.validate())
}

// configError is an error of Config validation: it matches ErrBadConfig
// as well as its cause.
type configError struct{ err error }

func (e *configError) Error() string   { return "engine: " + e.err.Error() }
func (e *configError) Unwrap() []error { return []error{ErrBadConfig, e.err} }
