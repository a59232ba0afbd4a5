package mem

import (
	"math/bits"
	"sort"
	"sync/atomic"

	"github.com/kvctl/kvctl/internal/hugepages"
	"github.com/kvctl/kvctl/internal/spinmu"
)

// extent is a free range [off, off+size) of a segment's address space,
// linked into the list of its bin.
type extent struct {
	off, size  int64
	bin        int
	prev, next *extent
}

// segment is one segment's allocator: an offset allocator over an address
// space of capacity bytes, after upstream's one OffsetAllocator per mounted
// segment (offset_allocator.cpp, OffsetAllocator::allocate). In byte mode
// the address space is backed by arenas, opened back to back as
// allocations need them: each is arenaSize bytes, or as large as the
// allocation that opens it (up to what is left of the segment), and free
// extents never cross an arena boundary, so every allocation lies inside
// one arena, one buffer a device can register. In metadata-only mode no
// bytes exist and the segment is a single arena: one contiguous range, as
// upstream's. Once the store is shared, mu guards every field but the
// constant name, capacity, arenaSize, noBytes, populate and pinners; it
// spins before it parks (internal/spinmu), since every store call of every
// copy thread takes it once for a microsecond or so.
type segment struct {
	mu        spinmu.Mutex
	name      string
	capacity  int64
	arenaSize int64
	noBytes   bool
	populate  func(mem []byte) // populateArena; tests watch it
	pinners   *atomic.Int32    // the store's callers pinning its arenas (ArenasPinned); nil: none
	arenas    []arena
	openedEnd int64 // where the address space no arena covers begins
	trailed   int64 // where the pages mapped ahead of small values' fill end (trail)
	used      int64 // bytes allocated: the objects' allocation sizes
	held      int64 // the objects' sizes, which Stat reports (upstream's cur_size_)
	byStart   map[int64]*extent
	byEnd     map[int64]*extent
	bins      [binCount]*extent
	nonEmpty  [binCount / 64]uint64
}

// arena is the opened range [start, end) of a segment's address space and
// its memory (nil in metadata-only mode).
type arena struct {
	start, end int64
	mem        []byte
}

func newSegment(name string, capacity, arenaSize int64, noBytes bool) *segment {
	if noBytes {
		arenaSize = capacity
	}
	return &segment{
		name:      name,
		capacity:  capacity,
		arenaSize: min(arenaSize, capacity),
		noBytes:   noBytes,
		populate:  populateArena,
		byStart:   map[int64]*extent{},
		byEnd:     map[int64]*extent{},
	}
}

// arenaOf is the index of the opened arena holding offset off, or
// len(g.arenas) when no opened arena holds it.
func (g *segment) arenaOf(off int64) int {
	i := sort.Search(len(g.arenas), func(i int) bool { return g.arenas[i].end > off })
	if i < len(g.arenas) && g.arenas[i].start > off {
		return len(g.arenas)
	}
	return i
}

// alloc reserves n bytes (a multiple of Granule), reusing free space before
// opening a new arena; ok is false when the segment has no room. An arena
// it opens is populated ahead when populate says the bytes are large
// values (populateMin); small values have the pages after theirs mapped
// ahead (trail).
func (g *segment) alloc(n int64, populate bool) (off int64, ok bool) {
	off, ok = g.reserve(n, populate)
	switch {
	case ok && !populate:
		g.trail(off + n)
	case ok:
		g.keepAhead(off)
	}
	return off, ok
}

// reserve is alloc without trail.
func (g *segment) reserve(n int64, populate bool) (off int64, ok bool) {
	if n > g.capacity {
		return 0, false
	}
	if e := g.findFit(n); e != nil {
		return g.carve(e, n), true
	}
	for g.openedEnd < g.capacity {
		if e := g.openArena(n, populate); e.size >= n {
			return g.carve(e, n), true
		}
	}
	return 0, false
}

// findFit finds a free extent of at least n bytes: a few of the extents in
// n's own bin (where freed blocks of exactly n bytes land), then the head of
// the first non-empty bin whose extents are all large enough.
func (g *segment) findFit(n int64) *extent {
	e := g.bins[binDown(n)]
	for i := 0; e != nil && i < scanLimit; i++ {
		if e.size >= n {
			return e
		}
		e = e.next
	}
	if b := g.firstNonEmpty(binUp(n)); b >= 0 {
		return g.bins[b]
	}
	return nil
}

func (g *segment) firstNonEmpty(from int) int {
	for w := from >> 6; w < len(g.nonEmpty); w++ {
		mask := g.nonEmpty[w]
		if w == from>>6 {
			mask &= ^uint64(0) << (from & 63)
		}
		if mask != 0 {
			return w<<6 | bits.TrailingZeros64(mask)
		}
	}
	return -1
}

// openArena opens the next arena, large enough for n bytes where the
// segment has room, and returns its free extent; with populate, its pages
// are mapped ahead (populateArena), unless a caller pins them.
func (g *segment) openArena(n int64, populate bool) *extent {
	start, end := g.openRaw(max(n, g.arenaSize), populate)
	if populate && !g.noBytes && !g.pinned() {
		g.populate(g.arenas[len(g.arenas)-1].mem)
	}
	return g.insert(start, end-start)
}

// keepAhead opens the segment's next arena once large values land in the
// last one opened (off), while a caller pins the arenas (ArenasPinned),
// and maps its pages in the background (populate), so that the arena is
// mapped when values first land in it and the caller registers it. A
// GPU's registration maps the pages it pins: on the H200 virtual machine
// registering a fresh 64 MiB arena took 19.7-20.6 ms, one whose pages
// were mapped 3.6-4.9 ms (cuda's BenchmarkRegisterHost), and serve with
// 64 KiB pages replayed trace-small in 1.65-1.67 s against 2.03-2.32 s
// (docs/benchmarks.md, "serve's transfers, call by call"). The arena is
// opened when the one before it starts to fill, not when values need it,
// so that its mapping is done before its registration starts; it costs
// at most one arena of memory ahead per segment.
func (g *segment) keepAhead(off int64) {
	if g.noBytes || !g.pinned() || g.openedEnd >= g.capacity || off < g.arenas[len(g.arenas)-1].start {
		return
	}
	start, end := g.openRaw(g.arenaSize, true)
	g.populate(g.arenas[len(g.arenas)-1].mem)
	g.insert(start, end-start)
}

// openRaw allocates the next arena, of n bytes or what is left of the
// segment, without making it free space. An arena of large values (of a
// page or more: populateMin) is advised to be backed by transparent huge
// pages (hugepages.Advise): it is mapped whole anyway (populateArena, or
// a GPU's registration), so that costs no memory, and 2 MiB pages are
// mapped and pinned in far fewer steps. On the H200 virtual machine
// populating 64 MiB took 10.1-11.5 ms against 23.5-24.7 ms
// (BenchmarkPopulate64MiB) and registering a mapped arena 2.5-3.0 ms
// against 3.6-4.8 (cuda's BenchmarkRegisterHost); serve with 64 KiB pages
// replayed trace-small in 1.20-1.31 s against 1.41-1.73 s there, and in
// 2.0-2.6 s against 4.2-7.8 s on a 2-core machine without a GPU
// (docs/benchmarks.md, "Arenas of large values on huge pages").
func (g *segment) openRaw(n int64, large bool) (start, end int64) {
	start = g.openedEnd
	end = start + min(n, g.capacity-start)
	a := arena{start: start, end: end}
	if !g.noBytes {
		a.mem = make([]byte, end-start)
		if large {
			hugepages.Advise(a.mem)
		}
	}
	g.arenas = append(g.arenas, a)
	g.openedEnd = end
	return start, end
}

// span is an allocated range of a segment.
type span struct{ off, n int64 }

// restore makes free space of everything in the opened arenas outside
// spans, which are sorted, disjoint and each inside one opened arena.
func (g *segment) restore(spans []span) {
	for _, a := range g.arenas {
		cur := a.start
		for len(spans) > 0 && spans[0].off < a.end {
			sp := spans[0]
			spans = spans[1:]
			if sp.off > cur {
				g.insert(cur, sp.off-cur)
			}
			cur = sp.off + sp.n
			g.used += sp.n
		}
		if cur < a.end {
			g.insert(cur, a.end-cur)
		}
	}
}

// carve takes n bytes from the start of free extent e.
func (g *segment) carve(e *extent, n int64) int64 {
	off := e.off
	g.unlink(e)
	delete(g.byStart, off)
	if e.size == n {
		delete(g.byEnd, off+n)
	} else {
		e.off += n
		e.size -= n
		g.byStart[e.off] = e
		g.link(e)
	}
	g.used += n
	return off
}

// free returns [off, off+n) to the free space, merging it with free
// neighbours in the same arena.
func (g *segment) free(off, n int64) {
	g.used -= n
	start, end := off, off+n
	a := g.arenas[g.arenaOf(off)]
	if p := g.byEnd[start]; p != nil && start > a.start {
		g.remove(p)
		start = p.off
	}
	if q := g.byStart[end]; q != nil && end < a.end {
		g.remove(q)
		end = q.off + q.size
	}
	g.insert(start, end-start)
}

func (g *segment) insert(off, size int64) *extent {
	e := &extent{off: off, size: size}
	g.byStart[off] = e
	g.byEnd[off+size] = e
	g.link(e)
	return e
}

func (g *segment) remove(e *extent) {
	g.unlink(e)
	delete(g.byStart, e.off)
	delete(g.byEnd, e.off+e.size)
}

func (g *segment) link(e *extent) {
	e.bin = binDown(e.size)
	e.prev, e.next = nil, g.bins[e.bin]
	if e.next != nil {
		e.next.prev = e
	}
	g.bins[e.bin] = e
	g.nonEmpty[e.bin>>6] |= 1 << (e.bin & 63)
}

func (g *segment) unlink(e *extent) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		g.bins[e.bin] = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	}
	if g.bins[e.bin] == nil {
		g.nonEmpty[e.bin>>6] &^= 1 << (e.bin & 63)
	}
	e.prev, e.next = nil, nil
}

// bytes is the memory of [off, off+n); nil in metadata-only mode.
func (g *segment) bytes(off, n int64) []byte {
	return g.arenaAt(off).bytes(off, n)
}

// arenaView is an opened arena's memory and where it starts in the
// segment's address space; its memory is nil in metadata-only mode.
type arenaView struct {
	mem   []byte
	start int64
}

// arenaAt is the opened arena holding offset off.
func (g *segment) arenaAt(off int64) arenaView {
	if g.noBytes {
		return arenaView{}
	}
	a := g.arenas[g.arenaOf(off)]
	return arenaView{a.mem, a.start}
}

// bytes is the memory of [off, off+n), which lies in the arena; nil in
// metadata-only mode.
func (v arenaView) bytes(off, n int64) []byte {
	if v.mem == nil {
		return nil
	}
	lo := off - v.start
	return v.mem[lo : lo+n : lo+n]
}
