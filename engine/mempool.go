package engine

import (
	"fmt"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// poolHeadroom is the fraction of a sized pool that the run may fill: below
// the eviction high watermark (0.90), so a pool sized for the run never
// evicts.
const poolHeadroom = 0.85

// PoolCapacity returns the capacity of a pool sized for a run of tokens
// tokens (prompt and generated) with layout l: room for a page of every
// slot of every block those tokens could fill (each page rounded up to the
// mem pool's 64-byte granule), kept below the eviction watermark, rounded
// up to 1 MiB, at least 64 MiB. A mem pool allocates its arenas as it
// fills, so sizing for the worst case costs only what is stored.
func PoolCapacity(l keys.Layout, tokens int64) int64 {
	t := int64(max(1, l.TokensPerBlock))
	blocks := tokens/t + 1
	var perBlock int64
	for range max(1, len(l.Ranks)) {
		for _, lg := range l.LayerGroups {
			perBlock += roundUp(lg.BytesPerPage, mem.Granule)
		}
	}
	for _, lg := range l.Replicated {
		perBlock += roundUp(lg.BytesPerPage, mem.Granule)
	}
	c := int64(float64(blocks*perBlock) / poolHeadroom)
	return max(64<<20, roundUp(c, 1<<20))
}

func roundUp(n, unit int64) int64 { return (n + unit - 1) / unit * unit }

// NewMemPool opens an embedded pool (byte mode) of the given capacity
// whose leases, soft pins and eviction run on clock, with the eviction
// step driven by the engine (every Config.EvictEvery of virtual time)
// instead of a wall-clock goroutine. Pass the same clock in Config.Clock.
func NewMemPool(clock *Clock, capacity int64) (*mem.Store, error) {
	s, err := mem.New(mem.Options{Capacity: capacity, Eviction: mem.EvictManual, Now: clock.Now})
	if err != nil {
		return nil, fmt.Errorf("opening the embedded pool for the run: %w", err)
	}
	return s, nil
}

// memEvictFunc returns the eviction step of a mem pool in manual eviction
// mode, else nil (other pools evict on their own).
func memEvictFunc(p pool.Store) func() {
	s, ok := p.(*mem.Store)
	if !ok || s.Options().Eviction != mem.EvictManual {
		return nil
	}
	return func() { s.EvictNow() }
}
