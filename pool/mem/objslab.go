package mem

import (
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

// sharedSlabObjects is how many objects one shared slab holds (90 KB).
const sharedSlabObjects = 1024

// objectSlabs hands the Put and Reserve calls their objects out of slabs
// they share, one made ahead on another goroutine: each call making its own
// small slab cost the whole-trace replay a fifth of its engine goroutine's
// time (the allocations, and the page faults of the fresh memory its first
// writes took). A slab is the calls' until its last object is dropped, as
// a call's own slab was: up to sharedSlabObjects objects kept by one that
// outlives its neighbours, which a put's objects, taken together and
// evicted in about the order they came, seldom are.
type objectSlabs struct {
	mu     sync.Mutex
	cur    []object
	ahead  chan []object // a slab made and touched ahead; room for one
	making atomic.Bool   // a goroutine is making the slab ahead
}

func newObjectSlabs() *objectSlabs {
	return &objectSlabs{ahead: make(chan []object, 1)}
}

// take returns n fresh objects, zero: from the current slab, from a new
// one when it has fewer than n left (the rest are never used), or of
// their own when n is more than a slab holds.
func (s *objectSlabs) take(n int) []object {
	if n > sharedSlabObjects {
		return make([]object, n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cur) < n {
		s.cur = s.next()
	}
	objs := s.cur[:n:n]
	s.cur = s.cur[n:]
	return objs
}

// next is the slab made ahead, or a new one when it is not ready yet; a
// slab is then made ahead for the call after. s.mu is held.
func (s *objectSlabs) next() []object {
	var slab []object
	select {
	case slab = <-s.ahead:
	default:
		slab = make([]object, sharedSlabObjects)
	}
	if s.making.CompareAndSwap(false, true) {
		go func() {
			s.ahead <- touchedSlab()
			s.making.Store(false)
		}()
	}
	return slab
}

// touchedSlab is a new slab whose pages were written once, so that the
// kernel maps them here rather than in the call that fills the objects.
func touchedSlab() []object {
	slab := make([]object, sharedSlabObjects)
	perPage := max(1, os.Getpagesize()/int(unsafe.Sizeof(object{})))
	for i := 0; i < len(slab); i += perPage {
		slab[i].seg = 0
	}
	return slab
}
