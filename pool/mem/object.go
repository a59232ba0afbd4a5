package mem

import (
	"sync/atomic"
	"unsafe"
)

// object is one key's metadata, 96 bytes: the pool holds one per value,
// millions of them when pages are small, so fields are packed (flags in
// bits, the segment in 32 bits, the allocation size recomputed from the
// size, the bytes as a pointer into the arena) and what few objects carry,
// a soft pin or a group, lives behind the extra pointer. What a lookup
// reads (key, next, flags) comes first: in a slab, where objects lie
// 96 bytes apart from a line's start, their first 32 bytes never cross a
// cache line. Which lock guards which field (see the locking in index.go):
//   - key, size: set before the object enters the index, then constant.
//   - next: the index's (keyindex.go), under the stripe lock of its
//     key's head; read without a lock.
//   - seg, off, data: written by the Put or Reserve call that made the
//     object, while it is unpublished and owned by that call; constant
//     once published (flagPublished is set after them).
//   - seq, publishedAt, flagHardPin, extra.softPinUntil: written by that
//     call just before it sets flagPublished; read under Store.mu held
//     exclusively, which keeps publishing calls out.
//   - extra.group, extra.groupIdx: written by join (at publish, under
//     Store.groupsMu) and leave (under Store.mu exclusively and
//     Store.groupsMu).
//   - flagFreed: set under the mutex of segment seg.
//   - flags, lease, readers, shard: atomics. Once a reader holding
//     Store.mu shared has found the object published, its seg, off, data
//     and size are safe to read, and it is not freed before the reader's
//     release (removal needs Store.mu exclusively).
type object struct {
	key         string
	next        atomic.Pointer[object] // the next object of the key's chain in the index
	flags       atomic.Uint32          // flagPublished, flagRemoved, ...
	seg         int32                  // -1 until placed
	data        *byte                  // the first of the object's bytes in its arena; nil when metadata-only or unplaced
	extra       *objectExtra
	lease       atomic.Int64 // lease deadline, Unix ns
	size        int64
	off         int64
	seq         uint64
	publishedAt int64
	readers     atomic.Int32  // Gets and Views holding the bytes
	shard       atomic.Uint32 // the key's metadata shard + 1; 0 until computed (lease.go)
}

// objectExtra is what an object soft-pinned or in an eviction group
// carries besides the common fields.
type objectExtra struct {
	softPinUntil int64 // Unix ns; 0 when not soft-pinned
	group        *group
	groupIdx     int
}

// The bits of object.flags.
const (
	flagPublished    uint32 = 1 << iota // visible to reads
	flagRemoved                         // gone from the index; memory freed by the last reader
	flagFreed                           // memory returned to its segment
	flagHardPin                         // never evicted
	flagAlignedAlloc                    // loaded from a version 1 snapshot: allocated at alignUp(size)
)

func (o *object) has(bit uint32) bool { return o.flags.Load()&bit != 0 }

func (o *object) set(bit uint32) { o.flags.Or(bit) }

func (o *object) published() bool { return o.has(flagPublished) }

func (o *object) removed() bool { return o.has(flagRemoved) }

func (o *object) hardPinned() bool { return o.has(flagHardPin) }

// bytes is the object's memory in its arena; nil when metadata-only or
// unplaced.
func (o *object) bytes() []byte {
	if o.data == nil {
		return nil
	}
	return unsafe.Slice(o.data, o.size)
}

// setBytes records b, the object's memory in its arena (nil when
// metadata-only).
func (o *object) setBytes(b []byte) {
	o.data = nil
	if len(b) > 0 {
		o.data = unsafe.SliceData(b)
	}
}

// allocSize is what o takes of its segment: its size rounded up to its
// bin in quanta of 2^qbits (version 1 snapshots: to Granule only).
func (o *object) allocSize(qbits uint) int64 {
	if o.has(flagAlignedAlloc) {
		return alignUp(o.size)
	}
	return allocSize(o.size, qbits)
}

// softPinUntil is o's soft pin deadline, Unix ns; 0 when not soft-pinned.
func (o *object) softPinUntil() int64 {
	if o.extra == nil {
		return 0
	}
	return o.extra.softPinUntil
}

// group is o's eviction group, nil when it has none.
func (o *object) group() *group {
	if o.extra == nil {
		return nil
	}
	return o.extra.group
}

// extras returns o's extra fields, making them on first use; the caller
// owns o (unpublished) or holds the lock its fields need.
func (o *object) extras() *objectExtra {
	if o.extra == nil {
		o.extra = new(objectExtra)
	}
	return o.extra
}
