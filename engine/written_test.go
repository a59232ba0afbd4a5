package engine

import (
	"context"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// TestRemovePages checks that a run with RemovePages removes every page
// it stored and nothing else, and that the report's pool is the pool as
// the run left it, before the removal.
func TestRemovePages(t *testing.T) {
	ctx := context.Background()
	for _, remove := range []bool{false, true} {
		cfg, p := testConfig(t)
		codes := make([]pool.Code, 1)
		if err := p.Put(ctx, []pool.PutItem{{Key: "someone-else", Value: []byte("v")}}, codes); err != nil || codes[0] != pool.OK {
			t.Fatalf("Put(someone-else) = %v %v, want nil OK", err, codes)
		}
		cfg.RemovePages = remove
		rep := runOK(t, cfg, testWorkload)
		st, err := p.Stat(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantRemoved, wantLeft := int64(0), rep.Pool.Keys
		if remove {
			wantRemoved, wantLeft = rep.Pool.Keys-1, 1
		}
		if rep.Pool.Keys <= 1 || rep.PoolKeysRemoved != wantRemoved || st.Keys != wantLeft {
			t.Errorf("RemovePages %v: run left %d keys, removed %d, %d in the pool after; want more than 1, %d, %d",
				remove, rep.Pool.Keys, rep.PoolKeysRemoved, st.Keys, wantRemoved, wantLeft)
		}
	}
}
