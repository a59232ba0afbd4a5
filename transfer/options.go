package transfer

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// Defaults of Options. DefaultBatch, DefaultStagingBytes and
// DefaultWorkers are the Mooncake-store connector's defaults of
// transfer_batch_size, staging_buffer_bytes and async_load_workers. They
// are written here, in the lowest package that applies them, and package
// connector's config names them: connector imports transfer, so they
// cannot live there.
const (
	// DefaultBatch is transfer_batch_size's default, in pages: 64, as in
	// TensorRT-LLM's mooncake_store connector (its config's
	// transfer_batch_size; spec/mooncake-pool.md).
	DefaultBatch = 64
	// DefaultStagingBytes is staging_buffer_bytes's default: 1 GiB per
	// direction (spec/connector.md).
	DefaultStagingBytes = 1 << 30
	// DefaultWorkers is async_load_workers's default: one load worker, the
	// least the upstream worker runs (max(1, async_load_workers)).
	DefaultWorkers = 1
	// DefaultStagingBuffers is the default number of sets in flight of a
	// loader, saver or async worker: staged, the staging buffers of one
	// set each that it cycles through (4 sets: 32 MiB of pinned memory
	// for a loader, 64 MiB for a saver); direct, where a set costs no
	// staging memory, the sets whose views or reservations it holds.
	DefaultStagingBuffers = 4
)

// DefaultParallel is the default of Options.Parallel for a loader or
// saver (save): staged, the cores (GOMAXPROCS) but one from five cores up
// for loads, but two from eight cores up for saves, whose threads make the
// copies; direct, three quarters of them (all of up to three), whose calls
// only describe or publish values and keep a third of 16 helpers busy or
// less. An AsyncLoader's workers, when more than one, split crewCores
// evenly, at least 1 each: no run measured them with a core left free.
//
// The cores left free are for the rest of the machine: the crew's
// helpers spin between calls and a set is done only once its last call
// is, so a thread the kernel takes off its core for another holds the
// whole pipeline up. On 16-core H100s one other busy thread took staged
// transfers of 4 KiB pages with 16 threads from 0.74-0.88 of the link to
// 0.40-0.58, and 15 moved as much as 16 on a quiet machine
// (docs/benchmarks.md, "Copy crews beside a busy thread"). A staged save
// also has the embedded pool make its objects' memory ahead on a goroutine
// of its own, which beside a busy thread hardly got a processor: with 14
// threads saves moved 0.80-0.91 there against 0.63-0.73 with 15, and as
// much on a quiet machine ("Issue 16's goals at cdb7c4a"). Direct crews of
// 16 threads lost even on quiet machines, and of 12 stood one or two busy
// threads ("Copy helpers keep their threads only while they run calls").
func DefaultParallel(direct, save bool) int {
	n := runtime.GOMAXPROCS(0)
	switch {
	case direct:
		return crewCores(n, true)
	case save && n >= 8:
		return n - 2
	case n > 4:
		return n - 1
	}
	return n
}

// crewCores is how many of n cores the crews of a transfer's lanes share:
// all of them staged, three quarters (all of up to three) direct.
func crewCores(n int, direct bool) int {
	if direct {
		return n - n/4
	}
	return n
}

// Options configure a Loader, an AsyncLoader or a Saver.
type Options struct {
	// Device runs the copies; required.
	Device cuda.Device
	// Pool is the store pages are loaded from or saved to; required.
	Pool pool.Store
	// Pools are the GPU pages, one PagePool per layer group (PageRef's
	// LayerGroup indexes them); required.
	Pools []*PagePool
	// Batch is transfer_batch_size: the most pages per store call
	// (default DefaultBatch); the staging geometry may reduce it.
	Batch int
	// StagingBytes is staging_buffer_bytes, per direction (default
	// DefaultStagingBytes). Only the slots' bytes are allocated.
	StagingBytes int64
	// Mode is how regions are copied (default cuda.ModeMemcpy).
	Mode cuda.CopyMode
	// Direct copies between the GPU and the pool's arenas in place,
	// without staging: the pool must implement ArenaStore (loads) or
	// ArenaWriter (saves).
	Direct bool
	// Arenas is the registry of the pools' arenas direct transfers use
	// (default DefaultArenas): the loaders and savers of one pool and
	// device must share one.
	Arenas *Arenas
	// Workers is the number of async load workers (AsyncLoader only;
	// default DefaultWorkers).
	Workers int
	// Parallel is the size of the crew that runs a set's store calls, the
	// goroutine waiting for them included (default DefaultParallel: the
	// cores staged, three quarters of them direct, split evenly among an
	// AsyncLoader's workers; when set, each
	// worker's; kvctl bench --copy-threads): staged, the calls make the
	// copies between the pool's values and pinned staging, so it is the
	// number of threads that copy. A staged set is split into calls of
	// at most Batch pages and at least MinCallBytes, about four per
	// thread; with 1, one call per batch.
	Parallel int
	// StagingBuffers is how many sets a loader, saver or async worker has
	// in flight (default DefaultStagingBuffers; 1 turns the overlap off):
	// staged, the staging buffers of one set each that it cycles through,
	// reduced to what the staging budget and flightBytes in flight (or
	// two sets) hold, at least 1; while the
	// device copies one set from or to one buffer, the store calls of
	// another use another. Direct, the sets whose views or reservations
	// it holds.
	StagingBuffers int
	// SkipExisting makes a Saver ask Exist before each batch and skip the
	// pages present; without it, present pages are left to the put's
	// put-if-absent answer.
	SkipExisting bool
	// Stats receives phase times and counters; nil disables them.
	Stats *Stats
	// stagedZeroCopy makes kernel mode read (or write) a staged set's
	// pages in staging from the SMs instead of one contiguous copy through
	// the device bounce buffer: the GPU sweep's comparison of the two.
	stagedZeroCopy bool
}

func (o Options) withDefaults() (Options, error) {
	switch {
	case o.Device == nil:
		return o, errors.New("transfer options: no device")
	case o.Pool == nil:
		return o, errors.New("transfer options: no pool")
	case len(o.Pools) == 0:
		return o, errors.New("transfer options: no GPU page pools")
	case o.Batch < 0 || o.StagingBytes < 0 || o.Workers < 0:
		return o, fmt.Errorf("transfer options: negative batch %d, staging bytes %d or workers %d", o.Batch, o.StagingBytes, o.Workers)
	case o.Parallel < 0 || o.StagingBuffers < 0:
		return o, fmt.Errorf("transfer options: negative parallel calls %d or staging buffers %d", o.Parallel, o.StagingBuffers)
	}
	for g, p := range o.Pools {
		if p == nil {
			return o, fmt.Errorf("transfer options: no page pool for layer group %d", g)
		}
	}
	if o.Batch == 0 {
		o.Batch = DefaultBatch
	}
	if o.StagingBytes == 0 {
		o.StagingBytes = DefaultStagingBytes
	}
	if o.Mode == "" {
		o.Mode = cuda.ModeMemcpy
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.StagingBuffers == 0 {
		o.StagingBuffers = DefaultStagingBuffers
	}
	return o, nil
}

// parallelFor is the Parallel of each of workers lanes of loads or saves
// (save): the option when set, else DefaultParallel for one lane and an
// even share of crewCores for more, at least 1.
func (o Options) parallelFor(workers int, save bool) int {
	switch {
	case o.Parallel > 0:
		return o.Parallel
	case workers <= 1:
		return DefaultParallel(o.Direct, save)
	}
	return max(1, crewCores(runtime.GOMAXPROCS(0), o.Direct)/workers)
}

// maxPageBytes is the largest page of the pools' groups.
func (o Options) maxPageBytes() int64 {
	var m int64
	for _, p := range o.Pools {
		m = max(m, p.pageBytes)
	}
	return m
}

// PageRef names one page to move: its pool key and its GPU page.
type PageRef struct {
	Key        string `json:"key"`
	LayerGroup int    `json:"layer_group"`
	Page       int    `json:"page"`
}

// pageItem is a resolved PageRef of job number job: 32 bytes, half a
// cache line, since a call's resolving writes one per page (resolveRange).
type pageItem struct {
	job  int32
	page int32
	key  string
	pool *PagePool
}

// bytes is the size of the item's page.
func (it pageItem) bytes() int64 { return it.pool.pageBytes }

// regions is the number of regions of the item's page.
func (it pageItem) regions() int { return len(it.pool.group.RegionBytes) }

// resolvePage resolves reference r of job number job; false when it
// names no page (badRef says why: a bad reference is an error, never a
// silent drop). It inlines into the resolving's loop (resolveRange).
func resolvePage(pools []*PagePool, job int, r PageRef) (pageItem, bool) {
	if r.Key == "" || uint(r.LayerGroup) >= uint(len(pools)) || uint(r.Page) >= uint(pools[r.LayerGroup].pages) {
		return pageItem{}, false
	}
	return pageItem{job: int32(job), key: r.Key, pool: pools[r.LayerGroup], page: int32(r.Page)}, true
}

// badRef says what is wrong with reference r, the i-th of its job.
func badRef(pools []*PagePool, i int, r PageRef) error {
	switch {
	case r.Key == "":
		return fmt.Errorf("page %d: empty key", i)
	case r.LayerGroup < 0 || r.LayerGroup >= len(pools):
		return fmt.Errorf("page %d (%q): layer group %d, want 0 to %d", i, r.Key, r.LayerGroup, len(pools)-1)
	}
	p := pools[r.LayerGroup]
	return fmt.Errorf("page %d (%q): GPU page %d of layer group %d, want 0 to %d", i, r.Key, r.Page, r.LayerGroup, p.pages-1)
}
