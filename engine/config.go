package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
)

// Defaults of Config.
const (
	// DefaultTokensPerBlock is T when the layout leaves it zero.
	DefaultTokensPerBlock = 32
	// DefaultPageBytes is the page size of the default layout's single
	// layer group. Real pages are tens of KiB to MiB; serve keeps them
	// small on purpose. What is checked is that every byte of every page
	// makes the round trip, which a small page shows as well as a large
	// one, while the pool's memory is what bounds a replay: each stored
	// page also costs about 250 bytes of key and index in the embedded
	// pool. At 128 bytes (two regions of eight 8-byte words) the ~3M pages
	// of the 145M-token Mooncake conversation trace at T=32 hold about
	// 1.1 GB live, which runs in under 2 GiB with a Go memory limit of
	// 1.7 GiB (Config.MemoryLimit); 256-byte pages need 1.5 GB.
	DefaultPageBytes = 128
	// DefaultGPUBlocks is the number of KV blocks (pages per layer group)
	// when neither GPUBlocks nor GPUBytes is set: 1M tokens at T=32.
	DefaultGPUBlocks = 32768
	// DefaultMaxBatchSize and DefaultMaxNumTokens are TensorRT-LLM's
	// defaults of max_batch_size and max_num_tokens.
	DefaultMaxBatchSize = 2048
	DefaultMaxNumTokens = 8192
	// DefaultModelKey is the model key of the default namespace.
	DefaultModelKey = "kvctl-serve"
	// SuggestedMemoryLimit is a Config.MemoryLimit for serve: a replay of
	// the 145M-token Mooncake conversation trace with the default layout
	// and an embedded pool holds about 1.1 GB live and peaks at about
	// 1.65 GiB resident under this limit.
	SuggestedMemoryLimit = 1700 << 20
)

// Roles of the connector.
const (
	RoleBoth     = "both"     // loads and saves
	RoleProducer = "producer" // saves only
	RoleConsumer = "consumer" // loads only
	RoleCapacity = "capacity" // mounts pool memory, moves nothing
)

// Local reuse backoff modes (local_reuse_backoff).
const (
	BackoffOff   = "off"   // drops_reuse_match_backoff: take local matches whole
	BackoffAlign = "align" // requires_block_aligned_reuse: back off, align down to a block
)

// Config configures a replay. Zero fields take the documented defaults.
type Config struct {
	// Pool is the KV-cache pool (required). See PoolDemand for sizing an
	// embedded pool.
	Pool pool.Store
	// Layout: T and page sizes. A zero Layout is T=DefaultTokensPerBlock,
	// one layer group 0 of DefaultPageBytes, a single rank (world 1, rank
	// 0); a zero World means 1. World N > 1 is tensor parallelism in one
	// process: the engine holds every rank's shard of each page (Ranks
	// empty or every rank 0..N-1), lookups need every shard, saves and
	// loads move every shard, and a page missing at load time is fatal
	// (connector.LoadFailedError).
	Layout keys.Layout
	// Namespace of the keys; ModelKey defaults to DefaultModelKey.
	Namespace keys.Namespace
	// Scheme is the seed scheme; empty means keys.SchemeTRTLLM.
	Scheme keys.Scheme
	// Lookahead is the prompt lookahead L of a one-model draft (0: none).
	Lookahead int
	// LocalReuseBackoff is BackoffOff (default) or BackoffAlign; it only
	// matters with a lookahead.
	LocalReuseBackoff string
	// ReuseMatchAlignment trims local matches to a multiple of it; a
	// positive divisor of T (default 1).
	ReuseMatchAlignment int
	// GPUBlocks is the number of KV blocks; when zero, GPUBytes divided by
	// one block's pages, or DefaultGPUBlocks.
	GPUBlocks int
	GPUBytes  int64
	// MaxBatchSize and MaxNumTokens bound one iteration.
	MaxBatchSize int
	MaxNumTokens int
	// Role is RoleBoth (default), RoleProducer, RoleConsumer or
	// RoleCapacity.
	Role string
	// TransferBatchSize is pages per store call (default
	// connector.DefaultTransferBatchSize, 64).
	TransferBatchSize int
	// StageThroughHost moves pages through staging buffers of
	// StagingBufferBytes per direction (default
	// connector.DefaultStagingBufferBytes, 1 GiB).
	StageThroughHost   bool
	StagingBufferBytes int64
	// SoftPinTTL soft-pins every put; GroupBlocks groups a block's pages.
	SoftPinTTL  time.Duration
	GroupBlocks bool
	// Mover replaces the worker's page mover. With Device set, pages move
	// through package transfer on that device (connector.DeviceMover:
	// pinned staging, batched gets and puts, copies on a stream; with
	// StageThroughHost off, loads from a mem pool read its arenas in
	// place and saves gather into values reserved there). Otherwise, the default, a connector.HostMover copies between
	// the pool and the pages (through staging when StageThroughHost is on):
	// with the host emulation device every batch of a DeviceMover costs a
	// few stream synchronizations, which triples the wall time of a long
	// replay.
	Mover  connector.PageMover
	Device cuda.Device
	// StatsInterval emits statistics lines through StatsLine at most once
	// per interval of virtual time; zero emits none.
	StatsInterval time.Duration
	StatsLine     func(line string)
	// Verify compares every page loaded from the pool with the model's.
	Verify bool
	// Costs model the time of an iteration.
	Costs Costs
	// Clock is the virtual clock; nil makes a fresh one. Share it with the
	// pool (its Now, e.g. mem.Options.Now) so that leases age in virtual
	// time.
	Clock *Clock
	// EvictEvery runs the pool's eviction step (a pool.Evicter in manual
	// eviction mode, such as a mem pool) every so much virtual time;
	// zero means every 10 ms, the master's period.
	EvictEvery time.Duration
	// Regions splits synthetic pages (default DefaultRegions).
	Regions int
	// MemoryLimit, when positive, is the Go runtime's soft memory limit
	// during the run (runtime/debug.SetMemoryLimit), with the GOGC
	// percentage off so that the collector runs only as the heap nears the
	// limit; both are restored afterwards. The pool's pages and index are
	// long-lived: without a limit the collector lets the heap grow to twice
	// them, and with GOGC on it rescans them far more often. See
	// SuggestedMemoryLimit.
	MemoryLimit int64

	// FaultMissingRate is the probability that a page vanishes from the
	// pool between the lookup that found it and its load (it is removed
	// just before the load): single-rank requests restart, a TP run stops.
	FaultMissingRate float64
	// FaultPutErrorRate is the probability that the put of a page fails: a
	// lost write, only a future miss.
	FaultPutErrorRate float64
	// FaultPoolLatency is a real delay added to every pool call of the
	// connector (lookup, load batch, save batch).
	FaultPoolLatency time.Duration
	// FaultSeed seeds the fault draws; a run is deterministic given it.
	FaultSeed uint64

	// AsyncLoad (async_load) loads an admitted request's offer in the
	// background while the request is parked outside the batch: it takes
	// no slot and no token of the passes meanwhile, and rejoins the
	// running requests once its pages landed (get_finished), or restarts
	// when one was missing. In virtual time the load takes its bytes at
	// Costs.TransferGBps shared by AsyncLoadWorkers workers (default 1)
	// serving one FIFO queue; the bytes themselves are moved when the
	// request parks.
	AsyncLoad        bool
	AsyncLoadWorkers int

	// AttentionDP, when above 1, runs that many attention-DP owners, each
	// with its own KV cache of GPUBlocks, scheduler queues, batch and
	// connector halves, sharing the pool and one key space (w1r0); a
	// router places each request on the owner with the fewest requests in
	// flight. The owners run each pass in lock step in one goroutine
	// (deterministic); a pass costs the slowest owner's time. A missing
	// page restarts the request on its owner. Not with World > 1.
	AttentionDP int

	// Draft is a one-model draft on a context-only server (speculative
	// prefill): connector.DraftMTP, DraftMTPEagle or DraftEagle3, with
	// MaxDraftLen (max_draft_len). Keys use the draft's prompt lookahead
	// (connector.PromptLookahead; Lookahead must be 0 or equal to it), and
	// requests that are not context-only (output length above 1) fail at
	// admission.
	Draft       string
	MaxDraftLen int

	// CompletionReservation (completion reservation) records at admission
	// a bound of KV blocks per request, through the end of its output
	// limit, and admits a request only while every bound still fits in
	// the GPU's blocks; otherwise it waits at the head of the queue instead
	// of being admitted and preempted later. A bound is released when the
	// request's pages are freed (retired, preempted or restarted).
	CompletionReservation bool

	// AdmissionQuery (admission_query) asks the connector once a first
	// chunk is sized: when the pages cannot take the whole offer and a
	// token, the request is deferred to a later pass, up to
	// MaxOfferDeferrals times (max_offer_deferrals), then the offer is
	// trimmed. With AsyncLoad, a parking request takes a slot, and up to
	// MaxUnchargedParks parks a pass (max_uncharged_parks) take no tokens;
	// later ones are charged the chunk they would have run.
	AdmissionQuery    bool
	MaxUnchargedParks int
	MaxOfferDeferrals int
}

// faults are the connector's injected faults.
func (c Config) faults() connector.Faults {
	return connector.Faults{MissingRate: c.FaultMissingRate, PutErrorRate: c.FaultPutErrorRate,
		PoolLatency: c.FaultPoolLatency, Seed: c.FaultSeed}
}

// Costs are the modelled time of an iteration, in milliseconds:
// IterationMS + prefill tokens × PrefillTokenMS + decode requests ×
// DecodeTokenMS + bytes moved / (TransferGBps × 1e6). The defaults are an
// 8B-class model on one H200: 2 ms a step, 20 µs a prefill token (50k
// tokens/s), 50 µs per decoding request, 25 GB/s between pool and GPU.
type Costs struct {
	IterationMS    float64
	PrefillTokenMS float64
	DecodeTokenMS  float64
	TransferGBps   float64
}

// DefaultCosts returns the default Costs.
func DefaultCosts() Costs {
	return Costs{IterationMS: 2, PrefillTokenMS: 0.02, DecodeTokenMS: 0.05, TransferGBps: 25}
}

// DefaultLayout is the layout of a zero Config.Layout with T tokens per
// block (DefaultTokensPerBlock when t is 0).
func DefaultLayout(t int) keys.Layout {
	if t == 0 {
		t = DefaultTokensPerBlock
	}
	return keys.Layout{TokensPerBlock: t, LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: DefaultPageBytes}},
		World: 1, Ranks: []int{0}}
}

// withDefaults fills zero fields and validates.
func (c Config) withDefaults() (Config, error) {
	if c.Pool == nil {
		return c, errors.New("engine: no pool")
	}
	if len(c.Layout.LayerGroups)+len(c.Layout.Replicated) == 0 {
		c.Layout = DefaultLayout(c.Layout.TokensPerBlock)
	}
	if c.Layout.World == 0 {
		c.Layout.World = 1
	}
	if len(c.Layout.Ranks) == 0 {
		c.Layout.Ranks = allRanks(c.Layout.World)
	}
	if c.Namespace.ModelKey == "" {
		c.Namespace.ModelKey = DefaultModelKey
	}
	setDefault(&c.Scheme, keys.SchemeTRTLLM)
	setDefault(&c.LocalReuseBackoff, BackoffOff)
	setDefault(&c.ReuseMatchAlignment, 1)
	setDefault(&c.MaxBatchSize, DefaultMaxBatchSize)
	setDefault(&c.MaxNumTokens, DefaultMaxNumTokens)
	setDefault(&c.Role, RoleBoth)
	setDefault(&c.TransferBatchSize, connector.DefaultTransferBatchSize)
	setDefault(&c.StagingBufferBytes, connector.DefaultStagingBufferBytes)
	setDefault(&c.EvictEvery, 10*time.Millisecond)
	setDefault(&c.Regions, DefaultRegions)
	setDefault(&c.AsyncLoadWorkers, connector.DefaultAsyncLoadWorkers)
	if err := c.setDraft(); err != nil {
		return c, err
	}
	if c.Costs == (Costs{}) {
		c.Costs = DefaultCosts()
	}
	if c.Clock == nil {
		c.Clock = NewClock()
	}
	return c, c.validate()
}

// setDraft sets the lookahead of Draft.
func (c *Config) setDraft() error {
	switch c.Draft {
	case connector.DraftNone:
		return nil
	case connector.DraftMTP, connector.DraftMTPEagle, connector.DraftEagle3:
	default:
		return fmt.Errorf("engine: draft %q: want mtp, mtp-eagle or eagle3", c.Draft)
	}
	if c.MaxDraftLen < 1 {
		return fmt.Errorf("engine: draft %s: max draft len %d must be positive", c.Draft, c.MaxDraftLen)
	}
	l := connector.PromptLookahead(c.Draft, c.MaxDraftLen, true)
	if c.Lookahead != 0 && c.Lookahead != l {
		return fmt.Errorf("engine: lookahead %d contradicts draft %s's prompt lookahead %d", c.Lookahead, c.Draft, l)
	}
	c.Lookahead = l
	return nil
}

// allRanks is 0..world-1.
func allRanks(world int) []int {
	out := make([]int, max(1, world))
	for i := range out {
		out[i] = i
	}
	return out
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

func (c Config) validate() error {
	if err := c.Layout.Validate(); err != nil {
		return fmt.Errorf("engine: layout: %w", err)
	}
	if len(c.Layout.Ranks) != c.Layout.World {
		return fmt.Errorf("engine: world %d needs every rank 0..%d in one process, got ranks %v", c.Layout.World, c.Layout.World-1, c.Layout.Ranks)
	}
	if err := c.faults().Validate(); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if err := checkAlignment(c.ReuseMatchAlignment, c.Layout.TokensPerBlock); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	switch {
	case c.Lookahead < 0:
		return fmt.Errorf("engine: prompt lookahead %d is negative", c.Lookahead)
	case c.LocalReuseBackoff != BackoffOff && c.LocalReuseBackoff != BackoffAlign:
		return fmt.Errorf("engine: local_reuse_backoff %q: want off or align", c.LocalReuseBackoff)
	case c.MaxBatchSize < 1 || c.MaxNumTokens < 1:
		return fmt.Errorf("engine: max batch size %d and max num tokens %d must be positive", c.MaxBatchSize, c.MaxNumTokens)
	case c.AttentionDP < 0 || (c.AttentionDP > 1 && c.Layout.World > 1):
		return fmt.Errorf("engine: attention dp %d: want 0 or more, and a single rank (world %d)", c.AttentionDP, c.Layout.World)
	case c.MaxUnchargedParks < 0 || c.MaxOfferDeferrals < 0:
		return fmt.Errorf("engine: max uncharged parks %d and max offer deferrals %d must not be negative", c.MaxUnchargedParks, c.MaxOfferDeferrals)
	case c.AsyncLoadWorkers < 1:
		return fmt.Errorf("engine: async load workers %d must be positive", c.AsyncLoadWorkers)
	case c.TransferBatchSize < 1:
		return fmt.Errorf("engine: transfer batch size %d must be positive", c.TransferBatchSize)
	case c.GPUBlocks < 0 || c.GPUBytes < 0 || c.StagingBufferBytes < 0:
		return fmt.Errorf("engine: negative gpu blocks %d, gpu bytes %d or staging bytes %d", c.GPUBlocks, c.GPUBytes, c.StagingBufferBytes)
	case c.Costs.IterationMS < 0 || c.Costs.PrefillTokenMS < 0 || c.Costs.DecodeTokenMS < 0 || c.Costs.TransferGBps <= 0:
		return fmt.Errorf("engine: costs %+v: times must not be negative and bandwidth must be positive", c.Costs)
	}
	switch c.Role {
	case RoleBoth, RoleProducer, RoleConsumer, RoleCapacity:
	default:
		return fmt.Errorf("engine: role %q: want both, producer, consumer or capacity", c.Role)
	}
	return nil
}

// gpuBlocks resolves the number of KV blocks.
func (c Config) gpuBlocks(bytesPerBlock int64) (int, error) {
	switch {
	case c.GPUBlocks > 0:
		return c.GPUBlocks, nil
	case c.GPUBytes > 0:
		n := c.GPUBytes / bytesPerBlock
		if n < 1 {
			return 0, fmt.Errorf("engine: gpu bytes %d hold no block of %d bytes", c.GPUBytes, bytesPerBlock)
		}
		return int(min(n, 1<<30)), nil
	}
	return DefaultGPUBlocks, nil
}
