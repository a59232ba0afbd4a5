package cmd

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"

	// The pool backends kvctl links; each registers its URL schemes.
	_ "github.com/kvctl/kvctl/pool/keylist"
	_ "github.com/kvctl/kvctl/pool/mooncake"
	_ "github.com/kvctl/kvctl/pool/redis"
)

// cmd is the glue that picks concrete backends: the packages below it see
// pools only through package pool's interfaces (a test enforces it). This
// file links the backends and opens the embedded pools of serve and holes.

// openEmbeddedPool opens serve's embedded pool (mem, byte mode) of the
// given capacity, whose leases, soft pins and eviction run on clock: the
// eviction step is driven by the engine (pool.Evicter, every
// engine.Config.EvictEvery of virtual time) instead of a wall-clock
// goroutine. Pass the same clock in engine.Config.Clock.
func openEmbeddedPool(clock *engine.Clock, capacity int64, seed uint64) (pool.Store, error) {
	s, err := mem.New(mem.Options{Capacity: capacity, Eviction: mem.EvictManual, Now: clock.Now, Seed: seed})
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

// runPoolCapacity is the capacity of an embedded pool that holds all a
// run of tokens tokens with layout l can store, without evicting.
func runPoolCapacity(l keys.Layout, tokens int64) int64 {
	return mem.CapacityFor(engine.PoolDemand(l, tokens))
}

// simulatedPool opens the pools holes simulates: metadata-only mem pools
// with the simulated master's eviction_ratio and
// eviction_high_watermark_ratio, whose eviction step the simulator runs on
// the trace's clock.
func simulatedPool(evictionRatio, watermark float64, seed uint64) func(int64, func() time.Time) (pool.Store, error) {
	return func(capacity int64, now func() time.Time) (pool.Store, error) {
		s, err := mem.New(mem.Options{
			Capacity: capacity, MetadataOnly: true, EvictionRatio: evictionRatio, HighWatermark: watermark,
			ZeroEvictionRatio: evictionRatio == 0, ZeroHighWatermark: watermark == 0,
			Eviction: mem.EvictManual, Now: now, Seed: seed,
		})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}
