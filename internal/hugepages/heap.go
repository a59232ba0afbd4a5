package hugepages

import (
	"os"
	"runtime"
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
// AdviseHeap grows the heap by n bytes at once: it allocates them in one
// piece, which the runtime maps as fresh memory, advises them (Advise),
// drops them and collects (runtime.GC). They are then free memory of the
// heap, mapped and never written, so they cost nothing until used, and the
// advice stays with the mapping. The runtime's page allocator hands out
// the lowest free pages first (runtime/mpagealloc.go, pageAlloc.find),
// so the allocations that follow fill the advised memory from its start
// before the heap grows again; the scavenger's MADV_DONTNEED of free
// pages keeps the advice too. Only a process's first call grows the heap;
// later calls, calls under any other setting than madvise, and calls in a
// process whose GODEBUG turns huge pages off for the heap (disablethp=1,
// which the runtime obeys with MADV_NOHUGEPAGE) do nothing.
//
// The growth is at most a quarter of the machine's memory (heapGrowth):
// it is address space, but the kernel charges a writable mapping to its
// overcommit account as it is made, and refuses one larger than the
// memory (or, in strict mode, than what is left), which would end the
// process.
func AdviseHeap(n int64) {
	n = heapGrowth(n, sysmem.Total())
	if n < Size || Mode() != "madvise" || heapHugePagesOff(os.Getenv("GODEBUG")) {
		return
	}
	heapOnce.Do(func() {
		Advise(make([]byte, n))
		runtime.GC()
	})
}

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
