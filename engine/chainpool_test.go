package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
)

// A recycled chain hashes a prompt as a new chain does, whatever the
// chain it was before: longer or shorter, salted or not.
func TestChainPoolRecycledHashesAsNew(t *testing.T) {
	k := keysWithDefaults(keys.Settings{})
	reqs := []workload.Request{
		{ID: "long", Tokens: tokensOf(0, 500), OutputLength: 40},
		{ID: "short", Tokens: tokensOf(7, 70), OutputLength: 1},
		{ID: "salted", Tokens: tokensOf(0, 200), OutputLength: 3, CacheSalt: "s"},
		{ID: "empty", Tokens: nil, OutputLength: 1},
	}
	p := &chainPool{k: k}
	for _, r := range reqs {
		got := hashArrivalWith(p.newChain, r)
		want := hashArrival(k, r)
		if got.err != nil || want.err != nil {
			t.Fatalf("hashArrival(%s) errors %v, %v", r.ID, got.err, want.err)
		}
		if diff := cmp.Diff(want.chain.Hashes(), got.chain.Hashes(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("recycled chain's hashes of %s (-new +recycled):\n%s", r.ID, diff)
		}
		p.recycle(got.chain)
	}
}
