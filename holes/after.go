package holes

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// probeAfter is what a read-only probe (Probe, `kvctl holes --pool`) of the
// pool as the replay left it reports for the same requests: every full
// block of each request looked up once with the plain, non-leasing exist,
// so it changes no lease. It tells holes torn into the pool from holes a
// lookup met: eviction can tear a chain that no later request looks up
// again, which the replay's own count never sees but a probe of a real
// master after the same trace does.
func probeAfter(ctx context.Context, st pool.Store, reqs []Prepared, opts SimOptions) (stats.Holes, error) {
	var sum stats.Holes
	var ks []string
	var status []int
	for _, r := range reqs {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		ks = r.appendKeys(ks[:0], opts.Keys)
		status = grow(status, len(ks))
		for lo := 0; lo < len(ks); lo += DefaultChunkKeys {
			hi := min(lo+DefaultChunkKeys, len(ks))
			if err := st.Exist(ctx, ks[lo:hi], status[lo:hi]); err != nil {
				return sum, fmt.Errorf("probing request %q after the replay: %w", r.ID, err)
			}
		}
		present, err := stats.BlockPresence(status, opts.Keys.KeysPerBlock())
		if err != nil {
			return sum, err
		}
		rh := stats.AnalyzeCounts(present, opts.Keys.BlockTokens())
		rh.PromptTokens = int64(r.PromptTokens)
		sum.Add(rh)
	}
	return sum, nil
}
