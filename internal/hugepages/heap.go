package hugepages

import (
	"cmp"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kvctl/kvctl/internal/sysmem"
)

// heapOnce makes AdviseHeap grow the heap once a process.
var heapOnce sync.Once

// AdviseHeap has the Go heap's next n bytes backed by huge pages as they
// are first written, where the system leaves that to madvise (Mode).
// The runtime maps the heap without advice, so every object, index
// table and slab the heap hands out faults in 4 KiB at a time; on the
// paravirtualised 2-core development machine those faults, and the
// misses of the translation buffer over a large index, cost the
// whole-trace replay a quarter of its CPU (docs/benchmarks.md, "The heap
// on huge pages").
//
// AdviseHeap grows the heap by n bytes at once (growAdvised), advises
// them (Advise), drops them and hands them back to the system
// (debug.FreeOSMemory: a collection, then MADV_DONTNEED of the free
// memory). They are then free memory of the heap, mapped and unwritten, so
// they cost nothing until used, and the advice stays with the mapping. The
// runtime's page allocator hands out the lowest free pages first
// (runtime/mpagealloc.go, pageAlloc.find), so the allocations that follow
// fill the advised memory from its start before the heap grows again. It
// does not zero memory it handed back with MADV_DONTNEED (Linux's default,
// GODEBUG madvdontneed=1; runtime/mheap.go, initSpan), so a
// large allocation there that is never written whole (an embedded pool's
// arena not yet filled) costs only what is written. Collected without
// handing back, the memory stayed the heap's, used once: whether the
// pool's arenas were zeroed whole then hung on how far the runtime's
// scavenger had gone, and one whole-trace replay in four took 1.12 GB of
// max RSS rather than 0.98. Only a process's first call grows the heap;
// later calls, calls under any other setting than madvise, and calls in a
// process whose GODEBUG turns huge pages off for the heap (disablethp=1,
// which the runtime obeys with MADV_NOHUGEPAGE) do nothing.
//
// Asked for less than minHeapGrowth, AdviseHeap does nothing: a small heap
// faults in little, and its use rounded up to 2 MiB pages costs more in
// proportion (grown by 1,700 MiB, serve's replay of the 901-request
// testdata/trace-small.jsonl took 74 MB of max RSS against 57). Callers ask
// for what they will fill (mem.HeapFor).
//
// The growth is at most a quarter of the machine's memory (heapGrowth):
// it is address space, but the kernel charges a writable mapping to its
// overcommit account as it is made, and refuses one larger than the
// memory (or, in strict mode, than what is left), which would end the
// process.
func AdviseHeap(n int64) {
	n = heapGrowth(n, sysmem.Total())
	if n < minHeapGrowth || Mode() != "madvise" || heapHugePagesOff(os.Getenv("GODEBUG")) {
		return
	}
	heapOnce.Do(func() {
		growAdvised(n)
		debug.FreeOSMemory()
	})
}

// growAdvised grows the heap by about n bytes, advised, and drops them. It
// allocates them a huge page at a time: the runtime zeroes an allocation
// of which any part lies in memory the heap used before, and one
// allocation of n bytes that began in the free tail of the heap's used
// memory was zeroed whole, faulting a GiB in 4 KiB pages before it could
// be advised (4 s on the 2-core VM, in two runs of seven). Pieces that
// fill such free gaps cost only themselves; the others lie back to back in
// fresh memory at the heap's end. Every stretch of pieces is advised, with
// the gaps of less than a huge page between them (pieceSpans): a small
// object allocated between two pieces (by the collector, on a busy
// machine) splits them, and the heap's next large allocation, which
// starts in the lowest free memory, then began in pieces that were not
// advised (the heap's test failed so in 3 of 40 runs on a loaded VM).
func growAdvised(n int64) {
	pieces := make([][]byte, 0, n/Size+1)
	for grown := int64(0); grown < n; grown += Size {
		pieces = append(pieces, make([]byte, Size))
	}
	for _, sp := range pieceSpans(pieces) {
		adviseRange(sp.addr, sp.size)
	}
	runtime.KeepAlive(pieces)
}

// span is a range of memory.
type span struct{ addr, size uintptr }

// pieceSpans sorts pieces by address and joins those less than a huge
// page apart into spans, the memory between them included. That memory
// is the heap's own: the runtime reserves its heap 64 MiB arenas at a
// time (runtime/malloc.go, mheap.sysAlloc) and maps them as it grows into
// them (runtime/mheap.go, mheap.grow), and a gap that short lies in the
// arena of one of the two pieces.
func pieceSpans(pieces [][]byte) []span {
	slices.SortFunc(pieces, func(a, b []byte) int { return cmp.Compare(start(a), start(b)) })
	var spans []span
	for _, p := range pieces {
		addr, end := start(p), start(p)+uintptr(len(p))
		if k := len(spans) - 1; k >= 0 && addr < spans[k].addr+spans[k].size+Size {
			spans[k].size = end - spans[k].addr
			continue
		}
		spans = append(spans, span{addr, uintptr(len(p))})
	}
	return spans
}

// minHeapGrowth is the least growth AdviseHeap makes.
const minHeapGrowth = 256 << 20

// heapGrowth is how much AdviseHeap grows the heap when asked for n bytes
// on a machine of total bytes of memory (0: not known).
func heapGrowth(n, total int64) int64 {
	if total > 0 {
		return min(n, total/4)
	}
	return n
}

// heapHugePagesOff reports whether godebug, a GODEBUG value, turns
// transparent huge pages off for the Go heap, read as the runtime reads
// it at startup (runtime/runtime1.go, parsegodebug): the last disablethp
// setting that is a number wins, and any number but 0 turns them off.
func heapHugePagesOff(godebug string) bool {
	off := false
	for kv := range strings.SplitSeq(godebug, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "disablethp" {
			if n, err := strconv.ParseInt(v, 10, 32); err == nil {
				off = n != 0
			}
		}
	}
	return off
}
