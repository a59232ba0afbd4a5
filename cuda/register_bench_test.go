package cuda

import (
	"os"
	"testing"
	"unsafe"

	"github.com/kvctl/kvctl/internal/hugepages"
	"golang.org/x/sys/unix"
)

// BenchmarkRegisterHost measures registering (and unregistering) a fresh
// 64 MiB arena with a GPU, as a direct transfer does each pool arena:
// "unmapped", anonymous memory just mapped, whose pages the registration
// maps and pins; "mapped", whose pages were written before the timer ran,
// so that it only pins; "mapped-huge", the same with transparent huge
// pages asked for (MADV_HUGEPAGE) before the writes. It needs a GPU
// (skipped without one).
func BenchmarkRegisterHost(b *testing.B) {
	d, err := openDriverDevice(0)
	if err != nil {
		b.Skipf("no CUDA device: %v", err)
	}
	defer d.Close()
	const arena = 64 << 20
	for _, name := range []string{"unmapped", "mapped", "mapped-huge"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(arena)
			for b.Loop() {
				b.StopTimer()
				whole, mem := hugeAligned(b, arena)
				if name == "mapped-huge" {
					if err := unix.Madvise(mem, unix.MADV_HUGEPAGE); err != nil {
						b.Skipf("madvise(MADV_HUGEPAGE): %v", err)
					}
				}
				if name != "unmapped" {
					for i := 0; i < len(mem); i += os.Getpagesize() {
						mem[i] = 1
					}
				}
				b.StartTimer()
				h, err := d.RegisterHost(mem)
				if err != nil {
					b.Fatal(err)
				}
				if err := h.Close(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := unix.Munmap(whole); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// hugeAligned maps n bytes of anonymous memory starting on a 2 MiB
// boundary (where a huge page can back it): whole is the mapping to unmap.
func hugeAligned(b *testing.B, n int) (whole, mem []byte) {
	const huge = hugepages.Size
	whole, err := unix.Mmap(-1, 0, n+huge, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		b.Fatal(err)
	}
	skip := (huge - int(uintptr(unsafe.Pointer(unsafe.SliceData(whole))))%huge) % huge
	return whole, whole[skip : skip+n]
}
