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

// Size is the size of a transparent huge page on the platforms kvctl
// advises (x86-64 and arm64 with 4 KiB base pages).
const Size = 2 << 20

// Advise asks for the whole huge pages inside mem to be backed by
// transparent huge pages (MADV_HUGEPAGE) before they are first written.
// mem may start and end anywhere: the parts outside whole 2 MiB pages are
// left as they are, and so is everything where the kernel refuses or the
// platform has no such advice.
func Advise(mem []byte) { advise(mem) }

// Mode is the system's transparent huge page setting ("always",
// "madvise" or "never"), "" where it cannot be read.
func Mode() string { return mode() }

// Eligible reports whether the mapping holding p may be backed by huge
// pages (the THPeligible line of /proc/self/smaps), and false with an
// error where that cannot be read.
func Eligible(p []byte) (bool, error) { return eligible(p) }
