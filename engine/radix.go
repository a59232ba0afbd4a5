package engine

import "github.com/kvctl/kvctl/keys"

// radixNode is one cached block: a KV block whose pages hold the KV of the
// block with this chain hash. Since a chain hash commits to every token
// before it, the node's path from the root is implied by its hash; the
// parent link and child count keep the tree shape for reclaim.
type radixNode struct {
	hash     keys.Hash
	block    int32
	parent   *radixNode
	children int32
	refs     int32
	// stamp counts the releases of the node's block, across the hashes it
	// was cached under: the LRU queue's entry of its latest release is the
	// one with its stamp.
	stamp uint32
	// inLRU says the node is in the LRU queue: refs == 0 since its latest
	// release.
	inLRU bool
	// indexed says the tree's index maps hash to this node: it is reachable
	// by a match. It spares release and reclaim a map lookup.
	indexed bool
}

// radixTree indexes cached blocks by chain hash for local prefix reuse.
// Blocks no request references sit in an LRU queue, oldest first, and are
// reclaimed from its front when pages run out. A request releases its
// blocks deepest first, and every request that references a block also
// references its ancestors, so the front is a leaf in the normal course; a
// reclaimed node that still has children detaches them, which leaves them
// unreachable (a match walks from the root) until they age out too.
type radixTree struct {
	// index finds the node cached under a hash.
	index blockIndex
	// byBlock holds the node of each KV block: a block is cached under
	// at most one hash at a time, so nodes are never allocated.
	byBlock []radixNode
	// lru is the LRU queue from lru[head] on: an entry per release, in
	// release order (lruqueue.go). lruLen is how many nodes are in it.
	lru    []lruEntry
	head   int
	lruLen int
}

func newRadixTree(blocks int) *radixTree {
	t := &radixTree{byBlock: make([]radixNode, blocks)}
	t.index = newBlockIndex(t.byBlock)
	return t
}

// match walks hashes from the root and returns the leading nodes found,
// at most limit of them, taking a reference on each.
func (t *radixTree) match(hashes []keys.Hash, limit int, dst []*radixNode) []*radixNode {
	var parent *radixNode
	for i := 0; i < len(hashes) && i < limit; i++ {
		n := t.index.lookup(hashes[i])
		if n == nil || n.parent != parent {
			break
		}
		t.acquire(n)
		dst = append(dst, n)
		parent = n
	}
	return dst
}

// matchLen is how many leading nodes of hashes match would find, at most
// limit, taking no reference.
func (t *radixTree) matchLen(hashes []keys.Hash, limit int) int {
	var parent *radixNode
	n := 0
	for ; n < len(hashes) && n < limit; n++ {
		node := t.index.lookup(hashes[n])
		if node == nil || node.parent != parent {
			break
		}
		parent = node
	}
	return n
}

// insert caches block as the node for hash h under parent (nil for a first
// block) with one reference. It returns nil when h is already cached or
// when parent was detached (the caller keeps its block private).
func (t *radixTree) insert(h keys.Hash, block int32, parent *radixNode) *radixNode {
	slot, cached := t.index.slot(&h)
	if cached {
		return nil
	}
	if parent != nil && !parent.indexed {
		return nil
	}
	n := &t.byBlock[block]
	*n = radixNode{hash: h, block: block, parent: parent, refs: 1, indexed: true, stamp: n.stamp}
	if parent != nil {
		parent.children++
	}
	t.index.addAt(slot, n) // one probe finds h absent and its slot
	return n
}

func (t *radixTree) acquire(n *radixNode) {
	if n.refs == 0 && n.inLRU {
		n.inLRU = false // its entry in the queue is stale now
		t.lruLen--
	}
	n.refs++
}

// release drops one reference. An unreferenced indexed node becomes the
// newest entry of the LRU list; an unreferenced detached node is dropped
// and its block returned (free is true) for the free list.
func (t *radixTree) release(n *radixNode) (block int32, free bool) {
	n.refs--
	if n.refs > 0 {
		return 0, false
	}
	if !n.indexed {
		return n.block, true
	}
	t.enqueue(n)
	return 0, false
}

// reclaim removes the least recently used unreferenced node and returns
// its block; ok is false when no node is unreferenced.
func (t *radixTree) reclaim() (block int32, ok bool) {
	n := t.dequeue()
	if n == nil {
		return 0, false
	}
	if !n.indexed {
		return n.block, true // detached earlier
	}
	t.index.remove(n)
	n.indexed = false
	if n.parent != nil {
		n.parent.children--
	}
	if n.children > 0 {
		t.detachChildren(n)
	}
	return n.block, true
}

// detachChildren takes the descendants of n out of the index: a match
// could never reach them again. Unreferenced ones stay in the LRU queue and
// are reclaimed in turn; referenced ones return their block when released.
// There is no child list, so it scans the nodes; it is rare (see
// radixTree).
func (t *radixTree) detachChildren(n *radixNode) {
	gone := map[*radixNode]bool{n: true}
	for changed := true; changed; {
		changed = false
		for i := range t.byBlock {
			if c := &t.byBlock[i]; c.indexed && gone[c.parent] {
				gone[c] = true
				t.index.remove(c)
				c.indexed = false
				changed = true
			}
		}
	}
	n.children = 0
}

// cached returns the number of cached blocks and how many of them are
// unreferenced (reclaimable).
func (t *radixTree) cached() (total, reclaimable int) { return t.index.n, t.lruLen }
