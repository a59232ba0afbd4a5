package engine

import "github.com/kvctl/kvctl/keys"

// allocation is one request's block table: the KV block of each of its
// blocks, and the radix node of each block cached for reuse (nil for a
// private block).
type allocation struct {
	blocks []int32
	nodes  []*radixNode
	// registered counts the leading blocks whose KV is settled: cached in
	// the tree, or kept private.
	registered int
}

func (a *allocation) numBlocks() int { return len(a.blocks) }

// kvCache is the KV cache manager: the page memory, the free list and the
// radix tree of cached blocks.
type kvCache struct {
	pages *pageMemory
	tree  *radixTree
	free  []int32
	// alignment is reuse_match_alignment in tokens.
	alignment int
	perBlock  int
	scratch   []*radixNode
}

// newKVCache returns the KV cache over pages; alignment is a valid
// reuse_match_alignment (SchedulerConfig.validate).
func newKVCache(pages *pageMemory, tokensPerBlock, alignment int) *kvCache {
	c := &kvCache{pages: pages, tree: newRadixTree(pages.blocks), alignment: alignment, perBlock: tokensPerBlock}
	c.free = make([]int32, pages.blocks)
	for i := range c.free {
		c.free[i] = int32(pages.blocks - 1 - i) // pop from the end: block 0 first
	}
	return c
}

// available is how many blocks can be allocated now: free ones and cached
// ones no request references.
func (c *kvCache) available() int { return len(c.free) + c.tree.lruLen }

// match takes the leading cached blocks of hashes, at most limit, into an
// empty allocation and returns how many.
func (c *kvCache) match(a *allocation, hashes []keys.Hash, limit int) int {
	c.scratch = c.tree.match(hashes, limit, c.scratch[:0])
	for _, n := range c.scratch {
		a.blocks = append(a.blocks, n.block)
		a.nodes = append(a.nodes, n)
	}
	a.registered = len(c.scratch)
	return len(c.scratch)
}

// alignMatch trims a local match of matched tokens to a multiple of the
// reuse_match_alignment.
func (c *kvCache) alignMatch(matched int) int { return matched - matched%c.alignment }

// grow extends the allocation to n blocks, all or nothing.
func (c *kvCache) grow(a *allocation, n int) bool {
	need := n - len(a.blocks)
	if need <= 0 {
		return true
	}
	if need > c.available() {
		return false
	}
	for range need {
		b := c.take()
		a.blocks = append(a.blocks, b)
		a.nodes = append(a.nodes, nil)
	}
	return true
}

// take pops a free block, reclaiming the oldest unreferenced cached block
// when none is free; the caller checked available.
func (c *kvCache) take() int32 {
	if n := len(c.free); n > 0 {
		b := c.free[n-1]
		c.free = c.free[:n-1]
		return b
	}
	b, ok := c.tree.reclaim()
	if !ok {
		panic("engine: kvCache.take without an available block")
	}
	c.pages.invalidate(b)
	return b
}

// register settles block i of the allocation, whose pages now hold the KV
// of chain hash h: it is cached for reuse under block i-1's node, or kept
// private when that block is private or h is cached already.
func (c *kvCache) register(a *allocation, i int, h keys.Hash) {
	if i != a.registered || i >= len(a.blocks) {
		return
	}
	a.registered++
	var parent *radixNode
	if i > 0 {
		if parent = a.nodes[i-1]; parent == nil {
			return
		}
	}
	a.nodes[i] = c.tree.insert(h, a.blocks[i], parent)
}

// release frees the whole allocation: cached blocks go to the LRU list
// (deepest first, so that ancestors outlive descendants), private blocks to
// the free list.
func (c *kvCache) release(a *allocation) { c.truncate(a, 0) }

// truncate releases the blocks from index keep on.
func (c *kvCache) truncate(a *allocation, keep int) {
	for i := len(a.blocks) - 1; i >= keep; i-- {
		if n := a.nodes[i]; n != nil {
			if b, free := c.tree.release(n); free {
				c.freeBlock(b)
			}
		} else {
			c.freeBlock(a.blocks[i])
		}
	}
	a.blocks, a.nodes = a.blocks[:keep], a.nodes[:keep]
	a.registered = min(a.registered, keep)
}

func (c *kvCache) freeBlock(b int32) {
	c.pages.invalidate(b)
	c.free = append(c.free, b)
}
