package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/kvctl/kvctl/keys"
)

// TestBlockIndexAgainstMap adds and removes nodes at random, many of them
// on the same home slot, and checks every lookup against a map.
func TestBlockIndexAgainstMap(t *testing.T) {
	const blocks = 64
	nodes := make([]radixNode, blocks)
	x := newBlockIndex(nodes)
	want := map[keys.Hash]int32{}
	rng := rand.New(rand.NewPCG(1, 2))
	randomHash := func() keys.Hash {
		var h keys.Hash
		h[0] = byte(rng.IntN(8)) // few home slots: long probe runs that wrap
		h[15] = byte(rng.IntN(256))
		return h
	}
	for step := range 20000 {
		b := int32(rng.IntN(blocks))
		n := &nodes[b]
		if n.indexed {
			x.remove(n)
			n.indexed = false
			delete(want, n.hash)
		} else if h := randomHash(); x.lookup(h) == nil {
			*n = radixNode{hash: h, block: b, indexed: true}
			i, _ := x.slot(&h)
			x.addAt(i, n)
			want[h] = b
		}
		if x.n != len(want) {
			t.Fatalf("step %d: n = %d, want %d", step, x.n, len(want))
		}
		for h, b := range want {
			if got := x.lookup(h); got == nil || got.block != b {
				t.Fatalf("step %d: lookup(%s) = %v, want block %d", step, h, got, b)
			}
		}
	}
	if got := x.lookup(keys.Hash{0xaa}); got != nil {
		t.Errorf("lookup(absent hash) = block %d, want nil", got.block)
	}
}
