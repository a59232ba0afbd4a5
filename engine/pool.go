package engine

import (
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
)

// PoolDemand returns the most a run of tokens tokens (prompt and
// generated) with layout l can store in the pool: a page of every slot of
// every block those tokens could fill, that is blocks blocks of pages of
// the sizes pageSizes (every sharded layer group for every rank, then the
// replicated groups). Size an embedded pool from it (mem.CapacityFor), so
// that a pool sized for the run never evicts.
func PoolDemand(l keys.Layout, tokens int64) (blocks int64, pageSizes []int64) {
	blocks = tokens/int64(max(1, l.TokensPerBlock)) + 1
	for range max(1, len(l.Ranks)) {
		for _, lg := range l.LayerGroups {
			pageSizes = append(pageSizes, lg.BytesPerPage)
		}
	}
	for _, lg := range l.Replicated {
		pageSizes = append(pageSizes, lg.BytesPerPage)
	}
	return blocks, pageSizes
}

// evictFunc returns the eviction step of a pool whose owner must run it
// (a pool.Evicter in manual eviction mode), else nil (other pools evict on
// their own).
func evictFunc(p pool.Store) func() {
	e, ok := p.(pool.Evicter)
	if !ok || !e.ManualEviction() {
		return nil
	}
	return e.EvictNow
}
