// Package hugepages asks the kernel to back memory with transparent huge
// pages (2 MiB on x86-64) where the system leaves that to madvise, the
// default of most distributions, and tells what it got.
//
// Memory written for the first time is mapped a page at a time, one fault
// per 4 KiB page. On a virtual machine a fault costs microseconds (about 8
// µs on the paravirtualised 2-core development machine, where faults were
// a fifth of `kvctl keys`'s time), and pinning memory for a GPU walks every
// page: memory that is written whole soon after it is made (the pool's
// arenas of large values, the token arrays requests are parsed into) is
// mapped in far fewer steps as 2 MiB pages. The advice costs no memory
// where the memory is used whole anyway.
package hugepages

import (
	"runtime"
	"unsafe"
)

// Size is the size of a transparent huge page on the platforms kvctl
// advises (x86-64 and arm64 with 4 KiB base pages).
const Size = 2 << 20

// Advise asks for the whole huge pages inside mem to be backed by
// transparent huge pages (MADV_HUGEPAGE) before they are first written.
// mem may start and end anywhere: the parts outside whole 2 MiB pages are
// left as they are, and so is everything where the kernel refuses or the
// platform has no such advice.
func Advise(mem []byte) {
	adviseRange(start(mem), uintptr(len(mem)))
	runtime.KeepAlive(mem)
}

// Mode is the system's transparent huge page setting ("always",
// "madvise" or "never"), "" where it cannot be read.
func Mode() string { return mode() }

// Eligible reports whether the mapping holding p may be backed by huge
// pages (the THPeligible line of /proc/self/smaps), and false with an
// error where that cannot be read.
func Eligible(p []byte) (bool, error) { return eligible(p) }

// Slab carves arrays of T out of large allocations whose whole huge pages
// are advised (Advise), so that arrays made one after another for memory
// written soon after (read buffers, parsed tokens) fault in 2 MiB at a
// time. An allocation is garbage once none of its arrays is referenced.
// A Slab is not safe for concurrent use; its zero value carves from
// allocations of 8 MiB.
type Slab[T any] struct {
	rest []T // the unused rest of the current allocation
}

// slabBytes is the size of a Slab's allocations: four huge pages, of which
// at least three are whole wherever the allocation starts.
const slabBytes = 4 * Size

// Take returns an empty array with room for n values of T, carved from
// the current allocation, or from a new one when it has no room (an
// array larger than an allocation gets an allocation of its own).
func (s *Slab[T]) Take(n int) []T {
	if len(s.rest) < n {
		s.rest = alignedSlab[T](n)
	}
	b := s.rest[:0:n]
	s.rest = s.rest[n:]
	return b
}

// alignedSlab returns a new allocation of at least n values of T, and of
// slabBytes at least, that starts on a huge page boundary and is advised:
// it is allocated a huge page larger and the values before the boundary
// are left unused, never written, so they cost no memory.
func alignedSlab[T any](n int) []T {
	var zero T
	size := max(1, int(unsafe.Sizeof(zero)))
	n = max(n, slabBytes/size)
	mem := make([]T, n+Size/size)
	skip := toBoundary(uintptr(unsafe.Pointer(unsafe.SliceData(mem)))) / size
	mem = mem[skip : skip+n : skip+n]
	Advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(mem))), n*size))
	return mem
}

// toBoundary is how many bytes from addr to the next huge page boundary
// (0 when addr is on one).
func toBoundary(addr uintptr) int { return (Size - int(addr%Size)) % Size }

// adviseRange advises the whole huge pages inside the n bytes from addr,
// memory the caller keeps alive.
func adviseRange(addr, n uintptr) {
	skip := uintptr(toBoundary(addr))
	if skip < n && n-skip >= Size {
		madviseHuge(addr+skip, (n-skip)&^(Size-1))
	}
}

// start is where b's memory begins.
func start(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
