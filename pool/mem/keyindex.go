package mem

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/kvctl/kvctl/internal/prefetch"
	"github.com/kvctl/kvctl/internal/spinmu"
)

// The index's table. Every object, published or not, hangs in a chain
// from one of the table's heads, the one its key's hash picks, linked by
// its own next field: no entry is allocated for a key, and a lookup's
// dependent misses are the head, the object and its key's bytes. Lookups
// take no lock: a chain only ever gains objects at its head, each linked
// before the head points to it, and an object taken out while lookups
// may be walking past it keeps its next, so they still reach the end of
// its chain (objects are never reused, so a next never leads into another
// chain). Changes lock one stripe of the heads. A batch is looked up in
// phases, each a loop of independent steps that prefetch what the next
// phase reads (loadRun), so that the misses of a whole batch are in
// flight at once: what a general concurrent map, which hides its
// buckets, cannot offer.
//
// A dead object's next must not stay set for long: objects share slabs,
// a slab lives while any of its objects does, and a next kept by a dead
// object would keep the slab of the object it leads to alive, and so on
// down the chain (holes --simulate, whose pools evict all the time, held
// twice the live heap so). An object taken out with Store.mu held
// exclusively, as eviction and Remove take published objects out, drops
// its next at once (drop); one taken out with the lock shared (a put that
// found no room, a revoked reservation) is retired, and drops it at the
// next tend.
//
// The table grows, and retired objects drop their links, only while
// Store.mu is held exclusively (tend), so that no lookup reads the table
// meanwhile. Before a Put or Reserve takes the lock shared, it tends the
// index (Store.tendIndex) when a claim found its stripe crowded, when a
// stripe retired more than maxRetired objects, or when the call's own keys
// would crowd the table. Until then chains only grow longer.

// Sizes of the table: it never has fewer heads than minIndexHeads, and
// grows when a stripe holds more than maxIndexLoad keys a head.
const (
	minIndexHeads = 1 << 10
	indexStripes  = 1 << 8
	maxIndexLoad  = 1
)

// maxRetired is how many objects a stripe retires before the index asks
// to be tended: a few hundred in all, so that the slabs their links keep
// alive stay few.
const maxRetired = 4

// keyIndex maps packed keys to their objects. What every lookup reads
// (heads, size, seed) is a cache line away from the stripes' locks.
type keyIndex struct {
	heads   []atomic.Pointer[object] // len a power of two, at least indexStripes
	size    atomic.Int64             // len(heads), for callers holding no lock
	seed    maphash.Seed
	crowded atomic.Bool // a stripe went over its load; grow at the next chance
	retired atomic.Bool // a stripe retired more than maxRetired objects
	_       cpu.CacheLinePad
	stripes [indexStripes]indexStripe
}

// indexStripe is the lock of the heads whose number has the stripe's low
// bits, how many objects their chains hold and the objects taken out of
// them that keep their links until the next tend, alone on a cache line.
// Its lock spins before it parks (internal/spinmu): a store call takes
// some stripe's for each of its keys.
type indexStripe struct {
	mu      spinmu.Mutex
	n       int64
	retired []*object
	_       [64 - unsafe.Sizeof(spinmu.Mutex{}) - 8 - unsafe.Sizeof([]*object(nil))]byte
}

// newKeyIndex makes an index with heads for about keys keys.
func newKeyIndex(keys int64) *keyIndex {
	x := &keyIndex{seed: maphash.MakeSeed()}
	x.heads = make([]atomic.Pointer[object], headsFor(keys))
	x.size.Store(int64(len(x.heads)))
	return x
}

// headsFor is the table size for keys keys: the power of two at or above
// keys / maxIndexLoad, at least minIndexHeads.
func headsFor(keys int64) int {
	n := max(keys/maxIndexLoad, minIndexHeads)
	return 1 << bits.Len64(uint64(n-1))
}

// slot is the number of key's head.
func (x *keyIndex) slot(key string) uint64 {
	return maphash.String(x.seed, key) & uint64(len(x.heads)-1)
}

// find walks the chain from o for key.
func find(o *object, key string) *object {
	for o != nil && o.key != key {
		o = o.next.Load()
	}
	return o
}

// load finds key's object, published or not, or nil.
func (x *keyIndex) load(key string) *object {
	return find(x.heads[x.slot(key)].Load(), key)
}

// loadRun writes the object of each of keys, at most lookupRun of them,
// into objs: every head prefetched, then every chain's first object, then
// every such object's key, then each chain walked.
func (x *keyIndex) loadRun(keys []string, objs []*object) {
	var heads [lookupRun]*atomic.Pointer[object]
	for i, k := range keys {
		heads[i] = &x.heads[x.slot(k)]
		prefetch.Line(unsafe.Pointer(heads[i]))
	}
	for i := range keys {
		if o := heads[i].Load(); o != nil {
			prefetch.Line(unsafe.Pointer(o))
			objs[i] = o
		} else {
			objs[i] = nil
		}
	}
	for _, o := range objs[:len(keys)] {
		if o != nil {
			prefetch.Line(unsafe.Pointer(unsafe.StringData(o.key)))
		}
	}
	for i, k := range keys {
		objs[i] = find(objs[i], k)
	}
}

// insert links o into the index unless an object of its key is there,
// and reports whether it did.
func (x *keyIndex) insert(o *object) bool {
	h, st := x.locked(o.key)
	defer st.mu.Unlock()
	first := h.Load()
	if find(first, o.key) != nil {
		return false
	}
	o.next.Store(first)
	h.Store(o)
	st.n++
	if st.n > int64(maxIndexLoad*len(x.heads)/indexStripes) {
		x.crowded.Store(true)
	}
	return true
}

// remove takes o out of the index if it is there, while lookups may be
// walking past it: o keeps its next until the next tend.
func (x *keyIndex) remove(o *object) {
	h, st := x.locked(o.key)
	defer st.mu.Unlock()
	if st.unlink(h, o) {
		st.retired = append(st.retired, o)
		if len(st.retired) > maxRetired {
			x.retired.Store(true)
		}
	}
}

// drop takes o out of the index if it is there, when no lookup reads the
// index, and clears o's next.
func (x *keyIndex) drop(o *object) {
	h, st := x.locked(o.key)
	defer st.mu.Unlock()
	if st.unlink(h, o) {
		o.next.Store(nil)
	}
}

// locked is key's head, with its stripe, whose lock it takes; the caller
// unlocks it.
func (x *keyIndex) locked(key string) (*atomic.Pointer[object], *indexStripe) {
	i := x.slot(key)
	st := &x.stripes[i%indexStripes]
	st.mu.Lock()
	return &x.heads[i], st
}

// unlink takes o out of the chain from head, one of the stripe's, if it
// is there, and reports whether it was; the caller holds st.mu.
func (st *indexStripe) unlink(head *atomic.Pointer[object], o *object) bool {
	link := head
	for cur := link.Load(); cur != nil; cur = link.Load() {
		if cur == o {
			link.Store(o.next.Load())
			st.n--
			return true
		}
		link = &cur.next
	}
	return false
}

// each calls fn for every object; the index must not change meanwhile.
func (x *keyIndex) each(fn func(o *object)) {
	for i := range x.heads {
		for o := x.heads[i].Load(); o != nil; o = o.next.Load() {
			fn(o)
		}
	}
}

// len is how many objects the index holds; nothing may change it
// meanwhile.
func (x *keyIndex) len() int64 {
	var n int64
	for i := range x.stripes {
		n += x.stripes[i].n
	}
	return n
}

// needsTending says whether the index should be tended before a call adds
// up to n keys: a stripe went over its load or retired more than
// maxRetired objects, or the call alone would raise the load by more than
// a quarter. It takes no lock.
func (x *keyIndex) needsTending(n int) bool {
	return x.crowded.Load() || x.retired.Load() || int64(n) > x.size.Load()/4
}

// tend clears the links of the retired objects and grows the table, if
// need be, before a call adds up to n keys: to hold them beside those it
// has within its load, to four times n, so that calls as large do not
// make it grow again, and to twice its size when a stripe went over its
// load. Nothing may read or change the index meanwhile.
func (x *keyIndex) tend(n int) {
	for i := range x.stripes {
		st := &x.stripes[i]
		for _, o := range st.retired {
			o.next.Store(nil)
		}
		clear(st.retired) // the list's memory must not keep them either
		st.retired = st.retired[:0]
	}
	x.retired.Store(false)
	heads := max(headsFor(x.len()+int64(n)), headsFor(4*int64(n)))
	if x.crowded.Load() {
		heads = max(heads, 2*len(x.heads))
	}
	x.growTo(heads)
	x.crowded.Store(false)
}

// growTo rehashes the table into n heads when it has fewer; nothing may
// read or change the index meanwhile.
func (x *keyIndex) growTo(n int) {
	if n > len(x.heads) {
		x.rehash(n)
	}
}

// rehash moves every object into a table of n heads; nothing may read or
// change the index meanwhile.
func (x *keyIndex) rehash(n int) {
	old := x.heads
	x.heads = make([]atomic.Pointer[object], n)
	x.size.Store(int64(n))
	for i := range x.stripes {
		x.stripes[i].n = 0
	}
	x.crowded.Store(false)
	for i := range old {
		for o := old[i].Load(); o != nil; {
			next := o.next.Load()
			j := x.slot(o.key)
			o.next.Store(x.heads[j].Load())
			x.heads[j].Store(o)
			x.stripes[j%indexStripes].n++
			o = next
		}
	}
}
