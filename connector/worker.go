package connector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// KVPages is the runtime's KV page memory as the worker sees it.
type KVPages interface {
	// Page returns the bytes of page slot slot (an index into the
	// worker's PageSlots) of KV block block.
	Page(slot int, block int32) []byte
	// Holds reports the chain hash whose KV block block holds; ok is false
	// when its pages hold nothing computed or loaded. The worker refuses to
	// save a block that does not hold the hash it is saved under.
	Holds(block int32) (h keys.Hash, ok bool)
}

// WorkerOptions configure the worker half.
type WorkerOptions struct {
	// Store is the pool.
	Store pool.Store
	// Keys spell the page keys (Layout and Namespace; the worker builds no
	// chains); Keys.Layout.Ranks are the shards a lookup asks for (every
	// rank's, under tensor parallelism).
	Keys keys.Settings
	// Rank is this worker's rank: the shard it loads and saves.
	Rank int
	// Pages is the KV page memory.
	Pages KVPages
	// Mover moves the pages; nil means a direct HostMover with batches of
	// DefaultTransferBatchSize pages.
	Mover PageMover
	// SoftPinTTL soft-pins every put for that long (soft_pin_ttl_ms); 0
	// puts without a soft pin.
	SoftPinTTL time.Duration
	// GroupBlocks puts every page of a block into the block's eviction
	// group (group_blocks).
	GroupBlocks bool
	// LoadStats and SaveStats receive the transfer statistics; nil
	// records nothing.
	LoadStats, SaveStats *stats.LoadRecorder
	// PoolFailed, when set, is told of every pool call that failed as a
	// whole and that the worker went on from as upstream's connector does
	// (see Worker): call is CallLookup, CallLoad or CallSave.
	PoolFailed func(call string, err error)
}

// The pool calls PoolFailed names.
const (
	CallLookup = "lookup"
	CallLoad   = "load"
	CallSave   = "save"
)

// Worker is the connector's worker half on one rank: lookups
// (count_prefix_hit), loads before the forward and saves after it. It is
// not safe for concurrent use.
//
// A pool call that fails as a whole does not end the run, as in upstream's
// connector (mooncake_store worker.py): a lookup is a miss
// (count_prefix_hit logs a warning and returns 0), the pages of a load
// batch are missing (the request restarts; fatal under tensor
// parallelism), and a save batch is dropped (counted as failed pages,
// never emitted again). Each such failure goes to
// WorkerOptions.PoolFailed. A lookup or a save's exist tolerates any error
// of the store; a load or put through the mover only the pool's (one
// wrapping pool.ErrUnreachable, or a *pool.Error): other mover errors, a
// device's, end the run. An error after the context ended is always
// returned.
type Worker struct {
	opts   WorkerOptions
	slots  []PageSlot
	mover  PageMover
	exists func(ctx context.Context, keys []string, status []int) error
	spell  keySpeller
	// borrowPutKeys: the store copies put keys (pool.KeyCopier), so a
	// put is given the exist's borrowed keys instead of owned ones.
	borrowPutKeys bool

	failed     []string
	failedSet  map[string]bool
	passFailed int  // pages of the current StartLoadKV that failed
	asyncMeta  Meta // reused by LoadAsync
	submitted  []SubmittedSave

	// buffers reused from call to call
	keys    []string
	status  []int
	present []bool
	pages   [][]byte
	n       []int64
	owners  []int // index into the pass's transfers of each batched page
	items   []pool.PutItem
	codes   []pool.Code
	saves   []Transfer
}

// NewWorker returns the worker half. Lookups grant leases, as the
// connector's batch_is_exist does, when the store implements
// pool.LeasingExister; puts borrow their keys from a buffer reused from
// call to call when it implements pool.KeyCopier.
func NewWorker(opts WorkerOptions) (*Worker, error) {
	if opts.Store == nil || opts.Pages == nil {
		return nil, fmt.Errorf("connector worker needs a store and page memory")
	}
	if err := opts.Keys.Validate(); err != nil {
		return nil, fmt.Errorf("connector worker: %w", err)
	}
	w := &Worker{opts: opts, slots: PageSlots(opts.Keys.Layout, opts.Rank), mover: opts.Mover, failedSet: map[string]bool{}}
	w.spell = newKeySpeller(opts.Keys, w.slots)
	if w.mover == nil {
		w.mover = NewHostMover(opts.Store, DefaultTransferBatchSize, false, 0, 0)
	}
	w.exists = opts.Store.Exist
	_, w.borrowPutKeys = opts.Store.(pool.KeyCopier)
	if le, ok := opts.Store.(pool.LeasingExister); ok {
		w.exists = le.ExistLeasing
	}
	return w, nil
}

// Slots returns the page slots of one block on this worker's rank.
func (w *Worker) Slots() []PageSlot { return w.slots }

// CountPrefixHit asks one batched exist for every page of each block of
// hashes (every layer group, every rank's shard, then replicated pages)
// and returns the number of leading blocks whose pages are all present,
// with each block's presence (valid until the next call). A failed probe
// (negative status) is a miss, and so is a failed call: every block is
// absent (see Worker).
func (w *Worker) CountPrefixHit(ctx context.Context, hashes []keys.Hash) (int, []bool, error) {
	w.keys = w.keys[:0]
	w.spell.start(len(hashes) * len(w.spell.block))
	for _, h := range hashes {
		w.keys = w.spell.appendBlock(w.keys, h)
	}
	w.status = resize(w.status, len(w.keys))
	w.present = resize(w.present, len(hashes))
	if err := w.exists(ctx, w.keys, w.status); err != nil {
		w.spell.abandon()
		clear(w.keys)
		if ctx.Err() != nil {
			return 0, nil, err
		}
		w.poolFailed(CallLookup, fmt.Errorf("lookup of %d pages: %w", len(w.keys), err))
		clear(w.present)
		return 0, w.present, nil
	}
	per := w.opts.Keys.Layout.PagesPerBlock()
	hit, leading := 0, true
	for b := range hashes {
		ok := true
		for _, s := range w.status[b*per : (b+1)*per] {
			ok = ok && s == 1
		}
		w.present[b] = ok
		if leading = leading && ok; leading {
			hit++
		}
	}
	clear(w.keys) // drop the key strings
	return hit, w.present, nil
}

// poolFailed reports a pool call that failed as a whole and that the
// worker goes on from.
func (w *Worker) poolFailed(call string, err error) {
	if w.opts.PoolFailed != nil {
		w.opts.PoolFailed(call, err)
	}
}

// tolerated reports whether the worker goes on from err, the error of a
// load or put through the mover: the pool's (pool.ErrUnreachable or a
// *pool.Error), not a device's, and the context still live.
func tolerated(ctx context.Context, err error) bool {
	var pe *pool.Error
	return ctx.Err() == nil && (errors.Is(err, pool.ErrUnreachable) || errors.As(err, &pe))
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// TakeFailedLoadRequests returns the requests whose loads failed since the
// last call (take_failed_load_requests), in the order they failed.
func (w *Worker) TakeFailedLoadRequests() []string {
	out := w.failed
	w.failed = nil
	clear(w.failedSet)
	return out
}

// TakeSubmittedSaves returns the saves queued since the last call
// (take_submitted_saves).
func (w *Worker) TakeSubmittedSaves() []SubmittedSave {
	out := w.submitted
	w.submitted = nil
	return out
}
