package engine

import "math/bits"

// allocRoom recycles the block lists of retired requests' allocations for
// the requests admitted next, in size classes of powers of two, so that a
// replay allocates lists for the requests in flight rather than for every
// request of the trace. It is used on the engine's goroutine only, and
// only by a run whose requests own their allocations to the end (not a
// disaggregated one: see chainPool).
type allocRoom struct {
	free [][]allocation // by class: lists with room for 1<<class blocks
}

// take returns empty lists with room for n blocks: recycled ones of n's
// class, or new ones. A nil room makes lists of exactly n.
func (p *allocRoom) take(n int) ([]int32, []*radixNode) {
	if p == nil {
		return make([]int32, 0, n), make([]*radixNode, 0, n)
	}
	c := bits.Len(uint(max(n, 1) - 1))
	if c < len(p.free) {
		if k := len(p.free[c]); k > 0 {
			a := p.free[c][k-1]
			p.free[c] = p.free[c][:k-1]
			return a.blocks, a.nodes
		}
	}
	return make([]int32, 0, 1<<c), make([]*radixNode, 0, 1<<c)
}

// recycle takes back the lists of a released allocation (no blocks left)
// and empties it.
func (p *allocRoom) recycle(a *allocation) {
	if p == nil || cap(a.blocks) == 0 {
		return
	}
	c := bits.Len(uint(cap(a.blocks))) - 1 // the class whose room it has
	for len(p.free) <= c {
		p.free = append(p.free, nil)
	}
	clear(a.nodes[:cap(a.nodes)])
	p.free[c] = append(p.free[c], allocation{blocks: a.blocks[:0], nodes: a.nodes[:0]})
	*a = allocation{}
}
