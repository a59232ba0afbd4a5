package mem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// populateArena asks the kernel, on a goroutine of its own, to map every
// page of mem, a new arena, as writing to it would (MADV_POPULATE_WRITE,
// Linux 5.14 on; older kernels refuse, and the pages fault in as they are
// written). It writes nothing, so it cannot race the values put into the
// arena meanwhile: their first writes find the pages mapped, or fault in
// those it has not reached yet. The zeroing of the arena's pages moves
// off the goroutine that puts. An arena is a large heap allocation, so
// it starts on a page boundary, as madvise needs (where one would not,
// madvise refuses and nothing is populated). The arena stays referenced
// until the kernel is done.
func populateArena(mem []byte) {
	if len(mem) == 0 {
		return
	}
	go func() {
		const step = 2 << 20 // one call per 2 MiB: the first pages come first
		for off := 0; off < len(mem); off += step {
			if unix.Madvise(mem[off:min(off+step, len(mem))], unix.MADV_POPULATE_WRITE) != nil {
				return
			}
		}
	}()
}

// adviseHuge asks the kernel to back mem, a new arena of large values,
// with transparent huge pages (MADV_HUGEPAGE, for the whole 2 MiB pages
// inside it), where the system's setting leaves them to madvise (the
// default of most distributions, and of the H200 virtual machine). The
// arena is mapped whole anyway (populateArena, or a GPU's registration),
// so it costs no memory, and 2 MiB pages are mapped and pinned in far
// fewer steps: on the H200 virtual machine populating 64 MiB took
// 10.1-11.5 ms against 23.5-24.7 ms (BenchmarkPopulate64MiB) and
// registering a mapped arena 2.5-3.0 ms against 3.6-4.8 (cuda's
// BenchmarkRegisterHost); serve with 64 KiB pages replayed trace-small in
// 1.20-1.31 s against 1.41-1.73 s there, and in 2.0-2.6 s against 4.2-7.8
// s on a 2-core machine without a GPU (docs/benchmarks.md, "Arenas of
// large values on huge pages"). Where the kernel refuses, nothing
// changes.
func adviseHuge(mem []byte) {
	const huge = 2 << 20
	skip := (huge - int(uintptr(unsafe.Pointer(unsafe.SliceData(mem))))%huge) % huge
	if skip < len(mem) {
		_ = unix.Madvise(mem[skip:len(mem)-(len(mem)-skip)%huge], unix.MADV_HUGEPAGE)
	}
}
