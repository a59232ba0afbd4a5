package workload

import (
	"sync"

	"github.com/kvctl/kvctl/internal/hugepages"
)

// TokenBuffers lends the token arrays that ReadRequestsInto parses
// requests into, and takes them back (Give) once the reader of the
// requests is done with them, so that a long stream of requests is
// parsed into the same memory again and again instead of into fresh
// memory, whose first writes fault its pages in one at a time (on the
// 2-core development machine those faults were a fifth of `kvctl keys
// --requests`'s time: docs/benchmarks.md, "Token arrays reused, memory
// on huge pages"). New arrays are carved from allocations advised onto
// huge pages (hugepages.Slab), so even the first requests fault in few
// pages.
//
// Its methods may be called from any goroutine. The zero value is not
// usable: NewTokenBuffers makes one.
type TokenBuffers struct {
	mu   sync.Mutex
	free [][]int64 // arrays given back, the latest last
	kept int       // the tokens of free's arrays
	slab hugepages.Slab[int64]
}

const (
	// keepTokens bounds the tokens of the arrays kept for reuse (64 MiB):
	// a requests file's arrays in flight at once, parsed ahead of the
	// requests being hashed, take far less; an array given back beyond it
	// is left to the garbage collector.
	keepTokens = 8 << 20
)

// NewTokenBuffers returns an empty set of token arrays.
func NewTokenBuffers() *TokenBuffers { return &TokenBuffers{} }

// Give takes tokens back once nothing reads them any more: the next
// request parsed may be written into them. Giving back an array still in
// use, or twice, corrupts the requests parsed into it.
func (t *TokenBuffers) Give(tokens []int64) {
	if cap(tokens) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.kept+cap(tokens) > keepTokens {
		return
	}
	t.free = append(t.free, tokens[:0])
	t.kept += cap(tokens)
}

// take returns an empty array with room for n tokens: the array given
// back last if it has room, else a new one. On a nil *TokenBuffers it
// allocates, as a reader without buffers to reuse does.
func (t *TokenBuffers) take(n int) []int64 {
	if t == nil {
		return make([]int64, 0, n)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if k := len(t.free); k > 0 {
		b := t.free[k-1]
		t.free[k-1] = nil
		t.free = t.free[:k-1]
		t.kept -= cap(b)
		if cap(b) >= n {
			return b
		}
	}
	return t.slab.Take(n)
}
