package mem

import (
	"math/rand/v2"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/kvctl/kvctl/internal/spinmu"
)

// Sizes of the slabs the Put and Reserve calls share: 1,024 objects (90
// KB) and 64 KiB of keys.
const (
	sharedSlabObjects  = 1024
	sharedSlabKeyBytes = 64 << 10
)

// slabs hands the Put and Reserve calls the memory of their objects and of
// their keys out of slabs they share, one made ahead on another goroutine.
// Each call making its own small allocations cost the whole-trace replay a
// fifth of its engine goroutine's time: the allocations, and the page
// faults of the fresh memory its first writes took. A slab is the calls'
// until the last thing in it is dropped, as a call's own allocation was: a
// bounded amount of memory kept by an object or key that outlives its
// neighbours, which a put's objects, taken together and evicted in about
// the order they came, seldom do.
//
// Calls take from one of several slabs at a time (shards): the first whose
// lock is free. One caller at a time, as the replay's engine, always finds
// the first free and fills one slab. With a single slab, the 16 threads of
// an H200's saves of 4 KiB pages queued on its lock: in a direct save of a
// GiB its hand-overs kept them waiting 94 ms in all (an execution trace),
// and staged saves' puts took 25-29 ms of wall time against 11-14 ms
// before slabs (2026-12-03, docs/benchmarks.md).
//
// The fields every call reads (size, ahead) are a cache line away from the
// shards' locks, which the calls write.
type slabs[T any] struct {
	size   int         // of a slab, in Ts
	ahead  chan []T    // a slab made and touched ahead; room for one
	making atomic.Bool // a goroutine is making the slab ahead
	_      cpu.CacheLinePad
	shards [slabShards]slabShard[T]
}

// slabShards is how many slabs the calls take from at once.
const slabShards = 16

// slabShard is the slab one call at a time takes from, alone on its cache
// line; its lock spins before it parks (internal/spinmu).
type slabShard[T any] struct {
	mu  spinmu.Mutex
	cur []T
	_   [64 - unsafe.Sizeof(spinmu.Mutex{}) - unsafe.Sizeof([]T(nil))]byte
}

func newSlabs[T any](size int) *slabs[T] {
	return &slabs[T]{size: size, ahead: make(chan []T, 1)}
}

// take returns n fresh Ts, zero: from a shard's slab, from a new one when
// it has fewer than n left (the rest are never used), or of their own
// when n is more than a slab holds.
func (s *slabs[T]) take(n int) []T {
	if n > s.size {
		return make([]T, n)
	}
	sh := s.lock()
	defer sh.mu.Unlock()
	if len(sh.cur) < n {
		sh.cur = s.next()
	}
	out := sh.cur[:n:n]
	sh.cur = sh.cur[n:]
	return out
}

// lock locks and returns the first shard whose lock is free, or, when
// every one is held, waits for one drawn at random.
func (s *slabs[T]) lock() *slabShard[T] {
	for i := range s.shards {
		if s.shards[i].mu.TryLock() {
			return &s.shards[i]
		}
	}
	sh := &s.shards[rand.IntN(slabShards)]
	sh.mu.Lock()
	return sh
}

// next is the slab made ahead, or a new one when it is not ready yet; a
// slab is then made ahead for the call after.
func (s *slabs[T]) next() []T {
	var slab []T
	select {
	case slab = <-s.ahead:
	default:
		slab = make([]T, s.size)
	}
	if s.making.CompareAndSwap(false, true) {
		go func() {
			s.ahead <- touchedSlab[T](s.size)
			s.making.Store(false)
		}()
	}
	return slab
}

// touchedSlab is a new slab of n Ts whose pages were written once, so that
// the kernel maps them here rather than in the call that fills it.
func touchedSlab[T any](n int) []T {
	slab := make([]T, n)
	var zero T
	perPage := max(1, os.Getpagesize()/max(1, int(unsafe.Sizeof(zero))))
	for i := 0; i < len(slab); i += perPage {
		slab[i] = zero
	}
	return slab
}
