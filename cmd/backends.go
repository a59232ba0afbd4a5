package cmd

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/internal/hugepages"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/pool/replay"

	// The pool backends kvctl links; each registers its URL schemes.
	_ "github.com/kvctl/kvctl/pool/keylist"
	_ "github.com/kvctl/kvctl/pool/mooncake"
	_ "github.com/kvctl/kvctl/pool/mooncakestore"
	_ "github.com/kvctl/kvctl/pool/redis"
)

// cmd is the glue that picks concrete backends: the packages below it see
// pools only through package pool's interfaces (a test enforces it). This
// file links the backends and opens the embedded pools of serve, holes and
// pool replay.

// openEmbeddedPool opens serve's embedded pool (mem, byte mode) of the
// given capacity, whose leases, soft pins and eviction run on clock: the
// eviction step is driven by the engine (pool.Evicter, every
// engine.Config.EvictEvery of virtual time) instead of a wall-clock
// goroutine. Pass the same clock in engine.Config.Clock.
func openEmbeddedPool(clock *engine.Clock, capacity int64, seed uint64) (pool.Store, error) {
	return openEmbedded(mem.Options{Capacity: capacity, Eviction: mem.EvictManual, Now: clock.Now, Seed: seed})
}

// openRunPool opens the embedded pool of a replay of tokens tokens with
// layout l, as openEmbeddedPool does: sized to hold every page the run
// can store without evicting (engine.PoolDemand), its index for half
// that many keys. Prompts share prefixes, so a run stores fewer pages than
// it could (the 145M-token conversation trace 3.1M of 4.7M); the index
// grows in powers of two, so one sized for them all would be up to twice
// the table the run needs, and one sized for half grows at most once.
//
// Before it opens the pool it grows the heap on huge pages
// (hugepages.AdviseHeap) by the most the pool can take of it
// (mem.HeapFor), at most heapLimit (the run's memory limit), so that the
// pool's index, objects and keys, made after, fault in 2 MiB at a time:
// the whole-trace replay took 4.8 s against 7.1 s on a 2-core VM
// (docs/benchmarks.md, "The heap on huge pages").
func openRunPool(clock *engine.Clock, l keys.Layout, tokens int64, seed uint64, heapLimit int64) (pool.Store, error) {
	blocks, sizes := engine.PoolDemand(l, tokens)
	hugepages.AdviseHeap(min(heapLimit, mem.HeapFor(blocks, sizes)))
	return openEmbedded(mem.Options{
		Capacity: mem.CapacityFor(blocks, sizes), IndexKeys: blocks * int64(len(sizes)) / 2,
		Eviction: mem.EvictManual, Now: clock.Now, Seed: seed,
	})
}

func openEmbedded(opts mem.Options) (pool.Store, error) {
	s, err := mem.New(opts)
	if err != nil {
		return nil, fmt.Errorf("opening the embedded pool for the run: %w", err)
	}
	return s, nil
}

// openServePool opens serve's --pool. A mem:// pool runs its leases, soft
// pins and eviction on the engine's clock, as the default embedded pool
// does, whatever its URL says of eviction: a replay's time is virtual, and
// a pool on the wall clock would hold leases for minutes of replay time and
// starve its eviction. Other pools keep their own clocks.
func openServePool(ctx context.Context, rawURL string, clock *engine.Clock) (pool.Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "mem" {
		return pool.Open(ctx, rawURL)
	}
	opts, err := mem.ParseURL(u)
	if err != nil {
		return nil, err
	}
	opts.Now, opts.Eviction = clock.Now, mem.EvictManual
	return mem.New(opts)
}

// simulatedPool opens the pools holes simulates: metadata-only mem pools
// with the simulated master's eviction_ratio and
// eviction_high_watermark_ratio, mounted in segments of segmentBytes
// (global_segment_size; the last one holds the remainder), whose eviction
// step the simulator runs on the trace's clock.
func simulatedPool(evictionRatio, watermark float64, segmentBytes int64, seed uint64) func(int64, func() time.Time) (pool.Store, error) {
	return func(capacity int64, now func() time.Time) (pool.Store, error) {
		s, err := mem.New(mem.Options{
			Capacity: capacity, SegmentBytes: segmentBytes, MetadataOnly: true,
			Eviction: mem.EvictManual, Now: now, Seed: seed,
		}.WithRatios(evictionRatio, watermark))
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// openReplayPool opens the embedded pool pool replay runs a recording
// against: one segment of the recording's size, allocated as one range as
// the master's offset allocator does (so with bytes the pool takes memory
// up to the segment as the log fills it), with the master's flags, on the
// replay's clock, evicting only when the replay's eviction ticks say.
func openReplayPool(c replay.PoolConfig) (replay.Pool, error) {
	f := c.Flags
	s, err := mem.New(mem.Options{
		Capacity: c.SegmentBytes, Segments: 1, ArenaSize: (c.SegmentBytes + mem.Granule - 1) / mem.Granule * mem.Granule,
		LeaseTTL: f.LeaseTTL, SoftPinTTL: f.SoftPinTTL, KeepSoftPinned: f.KeepSoftPinned,
		Eviction: mem.EvictManual, Seed: c.Seed, Now: c.Now,
	}.WithRatios(f.EvictionRatio, f.HighWatermark))
	if err != nil {
		return nil, fmt.Errorf("opening the embedded pool for the replay: %w", err)
	}
	return s, nil
}
