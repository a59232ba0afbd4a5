package mem

import "golang.org/x/sys/unix"

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
