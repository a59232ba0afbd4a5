package transfer

import "github.com/kvctl/kvctl/pool"

// PartBytes is about the most of one page a staged transfer's call on the
// crew copies between staging and the pool when the pool can move parts
// of values: a load gets larger pages in parts of at most this size
// (pool.PartGetter), a save copies them in such parts into places it
// reserved (pool.Reserver), so that one page is copied on several
// threads, as Mooncake's transfer engine moves one object in slices over
// its workers (mooncake-transfer-engine/src/transport/rdma_transport/
// rdma_transport.cpp, RdmaTransport::submitTransferTask). Whole pages of
// 256 KiB loaded at 0.87-0.89 of the link on the H200, while 4 MiB pages,
// one Get each and so one thread each, moved 0.62-0.70 in sets that grew
// to 64 MiB to give every thread one; in parts, 0.89-0.90, and saved at
// 0.93-0.95 against 0.81-0.84 (docs/benchmarks.md, "Staged large pages").
const PartBytes = 256 << 10

// parted is shape for a staged lane of pool p with threads threads whose
// pages hold up to slot bytes, and the parts each of its pages moves in:
// more than one when shape moves pages of more than partBytes in parts,
// p can take them (shape.canPart) and the crew has threads to share them;
// the sets then need not grow with the threads.
func (shape setShape) parted(p pool.Store, slot int64, threads int) (setShape, int) {
	if shape.partBytes <= 0 || !shape.canPart(p) || slot <= shape.partBytes || threads <= 1 {
		return shape, 1
	}
	shape.perThread = 0
	return shape, int((slot + shape.partBytes - 1) / shape.partBytes)
}

// getsParts says whether a staged load of p can get pages in parts.
func getsParts(p pool.Store) bool {
	_, ok := p.(pool.PartGetter)
	return ok
}

// reservesParts says whether a staged save to p can put pages in parts:
// reserve them (Mooncake's PutStart), copy their parts into the places on
// the crew, commit them (PutEnd).
func reservesParts(p pool.Store) bool {
	_, ok := p.(pool.Reserver)
	return ok
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
