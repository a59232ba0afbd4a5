package engine

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kvctl/kvctl/keys"
)

// The LRU queue reclaims the least recently released unreferenced node,
// as a list of them in release order would, through long runs of
// acquires, releases and reclaims that leave many stale entries behind
// and compact the queue many times.
func TestLRUQueueKeepsReleaseOrder(t *testing.T) {
	const blocks = 64
	rng := rand.New(rand.NewPCG(1, 2))
	tree := newRadixTree(blocks)
	var next uint64
	fresh := func(b int32) *radixNode {
		next++
		var h keys.Hash
		for i := range 8 {
			h[i] = byte(next >> (8 * i))
		}
		h[8] = 1 // never the zero hash
		n := tree.insert(h, b, nil)
		if n == nil {
			t.Fatalf("insert of block %d refused", b)
		}
		return n
	}
	nodes := make([]*radixNode, blocks)
	for b := range nodes {
		nodes[b] = fresh(int32(b))
	}
	var model []int32 // unreferenced blocks, least recently released first
	compactions := 0
	for step := range 200_000 {
		b := int32(rng.IntN(blocks))
		n := nodes[b]
		head := tree.head
		switch op := rng.IntN(10); {
		case op < 5 && n.refs > 0:
			if _, free := tree.release(n); free {
				t.Fatalf("step %d: an indexed node's block freed", step)
			}
			if n.refs == 0 {
				model = append(model, b)
			}
		case op < 8:
			if n.refs == 0 {
				model = slices.DeleteFunc(model, func(x int32) bool { return x == b })
			}
			tree.acquire(n)
		default:
			got, ok := tree.reclaim()
			if ok != (len(model) > 0) || ok && got != model[0] {
				t.Fatalf("step %d: reclaim() = %d, %v; want the front of %v", step, got, ok, model)
			}
			if ok {
				model = model[1:]
				nodes[got] = fresh(got)
			}
		}
		if tree.head < head {
			compactions++
		}
		if tree.lruLen != len(model) {
			t.Fatalf("step %d: %d nodes in the queue, want %d", step, tree.lruLen, len(model))
		}
		if len(tree.lru) > 4*lruCompactMin+4*blocks {
			t.Fatalf("step %d: the queue holds %d entries for %d nodes", step, len(tree.lru), tree.lruLen)
		}
	}
	if compactions == 0 {
		t.Errorf("the queue was never compacted: the test does not reach it")
	}
}

// A block freed from a detached node and cached again under a new hash is
// not reclaimed by the entry of a release from its earlier life: stamps
// carry over the block's reuse.
func TestLRUQueueStaleEntryOfAReusedBlock(t *testing.T) {
	tree := newRadixTree(4)
	hash := func(b byte) keys.Hash { return keys.Hash{b, 1} }
	p := tree.insert(hash(1), 0, nil)
	c := tree.insert(hash(2), 1, p)
	x := tree.insert(hash(3), 2, nil)
	tree.release(p)
	tree.release(c)
	tree.acquire(c) // c's entry is stale now: queue [p, c (stale)]
	if b, ok := tree.reclaim(); !ok || b != 0 {
		t.Fatalf("reclaim() = %d, %v; want p's block 0", b, ok)
	}
	if b, free := tree.release(c); !free || b != 1 {
		t.Fatalf("release of the detached child = %d, %v; want its block 1 freed", b, free)
	}
	again := tree.insert(hash(4), 1, nil)
	tree.release(x)
	tree.release(again) // queue [c (stale), x, again]
	if b, ok := tree.reclaim(); !ok || b != 2 {
		t.Fatalf("reclaim() = %d, %v; want x's block 2, released before block 1's new node", b, ok)
	}
	if b, ok := tree.reclaim(); !ok || b != 1 {
		t.Fatalf("reclaim() = %d, %v; want block 1", b, ok)
	}
}
