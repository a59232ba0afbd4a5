package transfer

import (
	"context"
	"slices"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/crew"
	"github.com/kvctl/kvctl/pool"
)

// LoadPartBytes is about the most of one page a staged load's store call
// copies when the pool can get parts of values (pool.PartGetter): larger
// pages are loaded in parts of at most this size, each its own call on the
// lane's crew, so that one page is copied into staging on several
// threads, as Mooncake's transfer engine moves one object in slices over
// its workers (mooncake-transfer-engine/src/transport/rdma_transport/
// rdma_transport.cpp, RdmaTransport::submitTransferTask). Whole pages of
// 256 KiB loaded at 0.87-0.89 of the link on the H200, while 4 MiB
// pages, one Get each and so one thread each, moved 0.69-0.70 in sets that
// grew to 64 MiB to give every thread one (docs/benchmarks.md, "Staged
// sets: smaller for loads").
const LoadPartBytes = 256 << 10

// parted is shape for a staged lane of pool p with threads threads whose
// pages hold up to slot bytes, and the parts each of its pages is loaded
// in: more than one when shape loads pages of more than partBytes in parts,
// p can get parts (pool.PartGetter) and the crew has threads to share them;
// the sets then need not grow to a page per thread.
func (shape setShape) parted(p pool.Store, slot int64, threads int) (setShape, int) {
	if _, ok := p.(pool.PartGetter); !ok || shape.partBytes <= 0 || slot <= shape.partBytes || threads <= 1 {
		return shape, 1
	}
	shape.perThread = 0
	return shape, int((slot + shape.partBytes - 1) / shape.partBytes)
}

// partOf is the bytes [off, off+n) that part p of parts covers of a page of
// bytes bytes: equal parts of whole cache lines, the last one shorter and
// those past the page's end empty.
func partOf(bytes int64, p, parts int) (off, n int64) {
	size := (bytes + int64(parts) - 1) / int64(parts)
	size = (size + 63) &^ 63
	off = min(bytes, int64(p)*size)
	return off, min(bytes, off+size) - off
}

// partCalls are the arguments and answers of one set's part calls, by
// call: one key, offset, part of staging and size each.
type partCalls struct {
	keys []string
	offs []int64
	vals [][]byte
	n    []int64
}

// fit makes c hold calls calls.
func (c *partCalls) fit(calls int) {
	if calls > len(c.keys) {
		c.keys, c.offs, c.vals, c.n = make([]string, calls), make([]int64, calls), make([][]byte, calls), make([]int64, calls)
	}
}

// getParts posts the Gets of set s's k pages into its staging buffer (one
// page after the other), each page in the lane's parts calls of one part
// (pool.PartGetter). A page's first part describes its copies (and, in
// kernel mode, writes their descriptors into s.descs) as if it were found
// whole; a call whose part was not flags itself, and finishLookups fails
// the page's request, so those copies are dropped.
func (c *loadCall) getParts(ctx context.Context, s *slotSet, k, _ int) *crew.Task {
	l, d, parts := c.l, s.scratch, c.l.parts
	getter := l.o.Pool.(pool.PartGetter)
	d.parts.fit(k * parts)
	return l.crew.Post(k*parts, func(j int) error {
		i, p := j/parts, j%parts
		it := s.items[i]
		if p == 0 {
			d.ptrs[i] = l.stage.ptr(s.buffer, d.offs[i])
			d.describe(s.items, i, i+1, cuda.HostToDevice, func(int) bool { return true })
			if s.descs != nil {
				d.describeSet(s.descs, s.items, j, i, i+1)
			}
		}
		off, n := partOf(it.bytes, p, parts)
		d.short[j] = false
		if n == 0 {
			return nil
		}
		pc := &d.parts
		pc.keys[j], pc.offs[j], pc.vals[j] = it.key, off, l.stage.bytes(s.buffer, d.offs[i]+off, n)
		err := getter.GetParts(ctx, pc.keys[j:j+1], pc.offs[j:j+1], pc.vals[j:j+1], pc.n[j:j+1])
		d.short[j], pc.vals[j] = pc.n[j] != it.bytes, nil
		return err
	})
}

// foldParts turns the flags of the part calls of a set's k pages into one
// flag per page, as a set of one-page calls has them, and forgets the
// staging place of each page flagged.
func (d *setScratch) foldParts(k, parts int) {
	for i := range k {
		short := slices.Contains(d.short[i*parts:(i+1)*parts], true)
		d.short[i] = short
		if short {
			d.ptrs[i] = 0
		}
	}
}
