package engine

import (
	"cmp"
	"fmt"
	"time"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/keys"
)

// Local reuse backoff modes (SchedulerConfig.LocalReuseBackoff).
const (
	BackoffOff   = "off"   // drops_reuse_match_backoff: take local matches whole
	BackoffAlign = "align" // requires_block_aligned_reuse: back off, align down to a block
)

// SchedulerConfig bounds an iteration and decides what is admitted and
// reused. Zero fields take the documented defaults.
type SchedulerConfig struct {
	// MaxBatchSize and MaxNumTokens bound one iteration (max_batch_size,
	// max_num_tokens; default DefaultMaxBatchSize and DefaultMaxNumTokens).
	MaxBatchSize int
	MaxNumTokens int
	// LocalReuseBackoff is BackoffOff (default) or BackoffAlign; it only
	// matters with a prompt lookahead.
	LocalReuseBackoff string
	// ReuseMatchAlignment trims local matches to a multiple of it; a
	// positive divisor of T (default 1).
	ReuseMatchAlignment int
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
	// trimmed. With ConnectorConfig.AsyncLoad, a parking request takes a
	// slot, and up to MaxUnchargedParks parks a pass (max_uncharged_parks)
	// take no tokens; later ones are charged the chunk they would have run.
	AdmissionQuery    bool
	MaxUnchargedParks int
	MaxOfferDeferrals int
}

func (s SchedulerConfig) withDefaults() SchedulerConfig {
	s.MaxBatchSize = cmp.Or(s.MaxBatchSize, DefaultMaxBatchSize)
	s.MaxNumTokens = cmp.Or(s.MaxNumTokens, DefaultMaxNumTokens)
	s.LocalReuseBackoff = cmp.Or(s.LocalReuseBackoff, BackoffOff)
	s.ReuseMatchAlignment = cmp.Or(s.ReuseMatchAlignment, 1)
	return s
}

// validate checks s for T tokens per block.
func (s SchedulerConfig) validate(tokensPerBlock int) error {
	switch {
	case s.MaxBatchSize < 1 || s.MaxNumTokens < 1:
		return fmt.Errorf("max batch size %d and max num tokens %d must be positive", s.MaxBatchSize, s.MaxNumTokens)
	case s.LocalReuseBackoff != BackoffOff && s.LocalReuseBackoff != BackoffAlign:
		return fmt.Errorf("local reuse backoff %q: want %s or %s", s.LocalReuseBackoff, BackoffOff, BackoffAlign)
	case s.ReuseMatchAlignment <= 0 || tokensPerBlock%s.ReuseMatchAlignment != 0:
		return fmt.Errorf("reuse match alignment %d is not a positive divisor of tokens per block %d", s.ReuseMatchAlignment, tokensPerBlock)
	case s.MaxUnchargedParks < 0 || s.MaxOfferDeferrals < 0:
		return fmt.Errorf("max uncharged parks %d and max offer deferrals %d must not be negative", s.MaxUnchargedParks, s.MaxOfferDeferrals)
	}
	return nil
}

// ConnectorConfig configures the connector's halves, as the Mooncake
// client configuration's keys do (connector.MooncakeConfig). Zero fields
// take the documented defaults.
type ConnectorConfig struct {
	// Role is connector.RoleBoth (default), RoleProducer, RoleConsumer or
	// RoleCapacity (connector.CheckRole).
	Role string
	// TransferBatchSize is pages per store call (default
	// connector.DefaultTransferBatchSize).
	TransferBatchSize int
	// StageThroughHost moves pages through staging buffers of
	// StagingBufferBytes per direction (default
	// connector.DefaultStagingBufferBytes).
	StageThroughHost   bool
	StagingBufferBytes int64
	// CopyMode is how a device mover's copies move between the pool's
	// side and the GPU pages (connector.DeviceMoverOptions.Mode; default
	// cuda.ModeMemcpy, one copy per page as the connector makes them).
	CopyMode cuda.CopyMode
	// SoftPinTTL soft-pins every put; GroupBlocks groups a block's pages.
	SoftPinTTL  time.Duration
	GroupBlocks bool
	// AsyncLoad (async_load) loads an admitted request's offer in the
	// background while the request is parked outside the batch: it takes
	// no slot and no token of the passes meanwhile, and rejoins the
	// running requests once its pages landed (get_finished), or restarts
	// when one was missing. In virtual time the load takes its bytes at
	// Costs.TransferGBps shared by AsyncLoadWorkers workers (default
	// connector.DefaultAsyncLoadWorkers) serving one FIFO queue; the pages
	// are fetched from the pool when a worker starts the transfer. As
	// upstream, it needs a single rank or attention DP: with
	// Keys.Layout.World above 1 the configuration is refused.
	AsyncLoad        bool
	AsyncLoadWorkers int
	// Mover replaces the worker's page mover. Without it, pages move
	// through package transfer on GPUConfig.Device when set
	// (connector.DeviceMover: pinned staging, batched gets and puts,
	// copies on a stream; with StageThroughHost off, loads from a mem pool
	// read its arenas in place and saves gather into values reserved
	// there), else, the default, a connector.HostMover copies between the
	// pool and the pages (through staging when StageThroughHost is on;
	// a pool that takes buffer registrations, pool.BufferRegistrar, gets
	// the pages or that staging registered for the run): with the host
	// emulation device every batch of a DeviceMover costs a
	// few stream synchronizations, which triples the wall time of a long
	// replay.
	Mover connector.PageMover
}

func (c ConnectorConfig) withDefaults() ConnectorConfig {
	c.Role = cmp.Or(c.Role, connector.DefaultRole)
	c.TransferBatchSize = cmp.Or(c.TransferBatchSize, connector.DefaultTransferBatchSize)
	c.StagingBufferBytes = cmp.Or(c.StagingBufferBytes, connector.DefaultStagingBufferBytes)
	c.AsyncLoadWorkers = cmp.Or(c.AsyncLoadWorkers, connector.DefaultAsyncLoadWorkers)
	return c
}

func (c ConnectorConfig) validate() error {
	switch {
	case c.TransferBatchSize < 1:
		return fmt.Errorf("transfer batch size %d must be positive", c.TransferBatchSize)
	case c.StagingBufferBytes < 0:
		return fmt.Errorf("staging buffer bytes %d must not be negative", c.StagingBufferBytes)
	case c.AsyncLoadWorkers < 1:
		return fmt.Errorf("async load workers %d must be positive", c.AsyncLoadWorkers)
	case c.SoftPinTTL < 0:
		return fmt.Errorf("soft pin ttl %v is negative", c.SoftPinTTL)
	}
	return connector.CheckRole(c.Role)
}

// loads and saves report whether the role moves pages each way.
func (c ConnectorConfig) loads() bool {
	return c.Role == connector.RoleBoth || c.Role == connector.RoleConsumer
}

func (c ConnectorConfig) saves() bool {
	return c.Role == connector.RoleBoth || c.Role == connector.RoleProducer
}

// GPUConfig is the GPU side: how many KV blocks its memory holds, the
// device pages move to and from, and the synthetic pages' regions.
type GPUConfig struct {
	// Blocks is the number of KV blocks; when zero, Bytes divided by one
	// block's pages, or DefaultGPUBlocks.
	Blocks int
	Bytes  int64
	// Device, when set, moves pages through package transfer on it (see
	// ConnectorConfig.Mover).
	Device cuda.Device
	// Regions splits synthetic pages (default DefaultRegions).
	Regions int
}

// validate checks g for blocks of blockBytes bytes.
func (g GPUConfig) validate(blockBytes int64) error {
	switch {
	case g.Blocks < 0 || g.Bytes < 0:
		return fmt.Errorf("gpu blocks %d and gpu bytes %d must not be negative", g.Blocks, g.Bytes)
	case g.Blocks > MaxGPUBlocks:
		return fmt.Errorf("gpu blocks %d is outside 1..%d", g.Blocks, MaxGPUBlocks)
	case g.Blocks == 0 && g.Bytes > 0 && g.Bytes < blockBytes:
		return fmt.Errorf("gpu bytes %d hold no block of %d bytes", g.Bytes, blockBytes)
	}
	return nil
}

// MaxGPUBlocks is the most KV blocks of GPU memory: more than any GPU holds
// (a block index is an int32), and --gpu-bytes worth is capped to it.
const MaxGPUBlocks = 1 << 30

// blocks resolves the number of KV blocks of blockBytes bytes.
func (g GPUConfig) blocks(blockBytes int64) int {
	switch {
	case g.Blocks > 0:
		return g.Blocks
	case g.Bytes > 0:
		return int(min(g.Bytes/blockBytes, MaxGPUBlocks))
	}
	return DefaultGPUBlocks
}

// blockBytes is the bytes of one KV block on one rank of l.
func blockBytes(l keys.Layout) int64 {
	var n int64
	for _, s := range connector.PageSlots(l, l.Ranks[0]) {
		n += s.Bytes
	}
	return n
}

// DraftConfig is a one-model draft on a context-only server (speculative
// prefill). Keys use the draft's prompt lookahead
// (connector.PromptLookahead; Keys.Lookahead must be 0 or equal to it),
// and requests that are not context-only (output length above 1) fail at
// admission. The zero DraftConfig is no draft.
type DraftConfig struct {
	// Kind is connector.DraftNone, DraftMTP, DraftMTPEagle or DraftEagle3.
	Kind string
	// MaxLen is max_draft_len, positive with a draft.
	MaxLen int
}

// lookahead checks d and returns the prompt lookahead of its keys, given
// the lookahead of the key settings.
func (d DraftConfig) lookahead(keysLookahead int) (int, error) {
	switch d.Kind {
	case connector.DraftNone:
		return keysLookahead, nil
	case connector.DraftMTP, connector.DraftMTPEagle, connector.DraftEagle3:
	default:
		return 0, fmt.Errorf("draft %q: want %s, %s or %s", d.Kind, connector.DraftMTP, connector.DraftMTPEagle, connector.DraftEagle3)
	}
	if d.MaxLen < 1 {
		return 0, fmt.Errorf("draft %s: max draft len %d must be positive", d.Kind, d.MaxLen)
	}
	l := connector.PromptLookahead(d.Kind, d.MaxLen, true)
	if keysLookahead != 0 && keysLookahead != l {
		return 0, fmt.Errorf("lookahead %d contradicts draft %s's prompt lookahead %d", keysLookahead, d.Kind, l)
	}
	return l, nil
}
