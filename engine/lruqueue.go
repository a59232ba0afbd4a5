package engine

import (
	"unsafe"

	"github.com/kvctl/kvctl/internal/prefetch"
)

// The radix tree's LRU queue. A node released with no reference left is
// queued at the back with its stamp; a node acquired again leaves the
// queue by its inLRU flag alone, its entry left behind as stale, as is
// every entry of a node released again since (its stamp moved on). The
// front's first entry that is not stale is the least recently released
// unreferenced node: the order a doubly linked list kept before, but a
// reclaim reads an array that says which nodes come next, so it asks for
// them, and their index slots, a few reclaims ahead (prefetch.Line)
// instead of missing the cache on the next node's links, once a reclaim,
// which was a twelfth of the whole-trace replay's engine goroutine.

// lruEntry is one release: the node's block and its stamp then.
type lruEntry struct {
	block int32
	stamp uint32
}

// lruAhead is how many entries ahead of the front a reclaim asks for.
const lruAhead = 8

// lruCompactMin is the least queue length the queue is compacted at.
const lruCompactMin = 4096

// enqueue puts n, released with no reference left, at the back.
func (t *radixTree) enqueue(n *radixNode) {
	n.stamp++
	n.inLRU = true
	t.lruLen++
	t.lru = append(t.lru, lruEntry{block: n.block, stamp: n.stamp})
	t.compactLRU()
}

// dequeue takes the least recently released unreferenced node out of the
// queue; nil when there is none.
func (t *radixTree) dequeue() *radixNode {
	for t.head < len(t.lru) {
		e := t.lru[t.head]
		t.head++
		t.prefetchAhead()
		n := &t.byBlock[e.block]
		if n.inLRU && n.stamp == e.stamp {
			n.inLRU = false
			t.lruLen--
			return n
		}
	}
	return nil
}

// prefetchAhead asks for the node lruAhead entries past the front, and
// for the index slot of the node half as far, whose line was asked for
// lruAhead/2 reclaims ago: a reclaim takes its node out of the index.
func (t *radixTree) prefetchAhead() {
	if ahead := t.head + lruAhead; ahead < len(t.lru) {
		prefetch.Line(unsafe.Pointer(&t.byBlock[t.lru[ahead].block]))
	}
	if half := t.head + lruAhead/2; half < len(t.lru) {
		t.index.prefetchHome(&t.byBlock[t.lru[half].block].hash)
	}
}

// compactLRU drops the entries before the front once they are half the
// queue, and the stale ones once they are three quarters of what is left:
// the queue stays within a few times the nodes in it.
func (t *radixTree) compactLRU() {
	if len(t.lru) < lruCompactMin {
		return
	}
	switch live := len(t.lru) - t.head; {
	case live > 4*t.lruLen:
		kept := t.lru[:0]
		for _, e := range t.lru[t.head:] {
			if n := &t.byBlock[e.block]; n.inLRU && n.stamp == e.stamp {
				kept = append(kept, e)
			}
		}
		t.lru, t.head = kept, 0
	case t.head > len(t.lru)/2:
		t.lru = t.lru[:copy(t.lru, t.lru[t.head:])]
		t.head = 0
	}
}
