package transfer

import (
	"fmt"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// setScratch is one set's arguments and answers of its store calls, so
// that the calls of the next set can run while this set's copies are
// described and queued. It grows with the sets it holds, up to most
// pages.
type setScratch struct {
	most, regions int

	keys  []string
	items []pool.PutItem
	// vals are the pages' bytes the store calls read or write: views
	// (direct loads), places (direct saves) or staging (staged).
	vals  [][]byte
	codes []pool.Code
	// n are a staged load's Get sizes; offs the pages' offsets in the
	// set's staging buffer (staged).
	n    []int64
	offs []int64
	ptrs []cuda.DevPtr
	// copies are the set's copies, described by the goroutines of its
	// store calls: item i's are copies[ends[i-1]:ends[i]].
	copies []cuda.Copy
	ends   []int
	// dends are where each item's descriptors end in a described set
	// (direct, kernel mode): item i's are [dends[i-1], dends[i]).
	dends []int
	// short flags the set's store calls with a page not found whole
	// (loads) or not reserved (direct saves).
	short []bool
	// parts are the arguments and answers of a staged load's calls that
	// each get a part of a page (getParts), by call.
	parts partCalls
	// gathers are a direct save set's copies of the pages reserved.
	gathers []cuda.Copy
}

// newSetScratch is the empty scratch of a set of up to most pages of up
// to regions regions each.
func newSetScratch(most, regions int) *setScratch {
	return &setScratch{most: most, regions: regions}
}

// fit makes d hold n pages, doubling its room (up to most pages) when it
// must grow, so that small calls keep small scratch.
func (d *setScratch) fit(n int) {
	if n <= len(d.keys) {
		return
	}
	n = max(n, min(2*len(d.keys), d.most))
	d.keys, d.items, d.vals = make([]string, n), make([]pool.PutItem, n), make([][]byte, n)
	d.codes, d.n, d.offs, d.ptrs = make([]pool.Code, n), make([]int64, n), make([]int64, n), make([]cuda.DevPtr, n)
	d.copies, d.ends = make([]cuda.Copy, n*d.regions), make([]int, n)
	d.dends = make([]int, n)
}

// fitCalls makes d hold the answers of calls store calls.
func (d *setScratch) fitCalls(calls int) {
	if calls > len(d.short) {
		d.short = make([]bool, calls)
	}
}

// place makes room for items and records where each of their copies go
// in d.copies, and where each page lies in a staging buffer (one after
// the other).
func (d *setScratch) place(items []pageItem) {
	d.fit(len(items))
	end, off := 0, int64(0)
	for i, it := range items {
		end += it.regions()
		d.ends[i], d.offs[i] = end, off
		off += it.bytes()
	}
}

// placeStaged is place and describe for a set whose pages all move whole
// between the GPU and staging that begins at base: it lays the pages out
// from base and writes their copies of kind in one pass after place's. In
// the memcpy and batch modes a staged save's goroutine describes every set
// this way (in kernel mode, describeStaged), while the crew puts the set
// before.
func (d *setScratch) placeStaged(items []pageItem, base cuda.DevPtr, kind cuda.CopyKind) {
	d.place(items)
	for i, it := range items {
		d.ptrs[i] = base.Add(d.offs[i])
		describePage(d.copies[d.ends[i]-it.regions():d.ends[i]], it, d.ptrs[i], kind)
	}
}

// describeStaged writes the descriptors of a set laid out by
// placeDescribed in one part, whose pages all move whole between the GPU
// and staging that begins at base: one run, one pass over the pages. In
// kernel mode a staged save's goroutine describes every set this way
// while the crew puts the set before.
func (d *setScratch) describeStaged(set *cuda.DescSet, items []pageItem, base cuda.DevPtr) error {
	k := len(items)
	w := set.BeginRun(0, 0, 0, base, d.offs[k-1]+items[k-1].bytes())
	var last *PagePool
	var bases []cuda.DevPtr
	var sizes []int64
	for _, it := range items {
		if it.pool != last {
			last, sizes = it.pool, it.pool.group.RegionBytes
			bases = it.pool.regionBase[:len(sizes)]
		}
		for r, rb := range sizes {
			w.Add(regionOf(bases[r], rb, int(it.page)), rb)
		}
	}
	return w.End()
}

// describe writes the copies of items[lo:hi] whose places (d.ptrs) are
// known and for which ok says so, for kind, and holes (cuda.IsHole) for
// the others.
func (d *setScratch) describe(items []pageItem, lo, hi int, kind cuda.CopyKind, ok func(i int) bool) {
	for i := lo; i < hi; i++ {
		dst := d.copies[d.ends[i]-items[i].regions() : d.ends[i]]
		if d.ptrs[i] != 0 && ok(i) {
			describePage(dst, items[i], d.ptrs[i], kind)
			continue
		}
		for r, rb := range items[i].pool.group.RegionBytes {
			dst[r] = cuda.Copy{Bytes: rb}
		}
	}
}

// placeDescribed is place for a set whose store calls write its
// descriptors: it also records where each item's descriptors end in
// set, and begins set for kind in calls store calls.
func (d *setScratch) placeDescribed(set *cuda.DescSet, items []pageItem, kind cuda.CopyKind, calls int) error {
	d.fit(len(items))
	end, off, n, per, last := 0, int64(0), 0, 0, (*PagePool)(nil)
	for i, it := range items {
		if it.pool != last {
			per, last = pageDescs(it.pool), it.pool
		}
		end, n = end+it.regions(), n+per
		d.ends[i], d.offs[i], d.dends[i] = end, off, n
		off += it.bytes()
	}
	k := len(items)
	if err := set.Begin(kind, calls, n, d.offs[k-1]+items[k-1].bytes()); err != nil {
		return fmt.Errorf("describing a set of %d pages: %w", k, err)
	}
	return nil
}

// pageDescs is the descriptors of a page of p in kernel mode.
func pageDescs(p *PagePool) int {
	n := 0
	for _, rb := range p.group.RegionBytes {
		n += cuda.KernelDescs(rb)
	}
	return n
}

// descStart is where item i's descriptors start in a described set.
func (d *setScratch) descStart(i int) int {
	if i == 0 {
		return 0
	}
	return d.dends[i-1]
}

// describeSet writes the descriptors of items[lo:hi], whose copies are
// described, as part j of set.
func (d *setScratch) describeSet(set *cuda.DescSet, items []pageItem, j, lo, hi int) {
	first := d.ends[lo] - items[lo].regions()
	set.Describe(j, d.descStart(lo), d.offs[lo], d.copies[first:d.ends[hi-1]])
}

// all is every copy of the set's k pages.
func (d *setScratch) all(k int) []cuda.Copy { return d.copies[:d.ends[k-1]] }

// kept compacts the set's copies to those of the items keep accepts.
func (d *setScratch) kept(k int, keep func(i int) bool) []cuda.Copy {
	return compactCopies(d.copies, d.ends[:k], keep)
}

// shortCalls says whether any of the first calls store calls was flagged.
func (d *setScratch) shortCalls(calls int) bool {
	for _, s := range d.short[:calls] {
		if s {
			return true
		}
	}
	return false
}
