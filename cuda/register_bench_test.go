package cuda

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkRegisterHost measures registering (and unregistering) a fresh
// 64 MiB arena with a GPU, as a direct transfer does each pool arena:
// "unmapped", anonymous memory just mapped, whose pages the registration
// maps and pins, and "mapped", whose pages were written before the timer
// ran, so that it only pins. It needs a GPU (skipped without one).
func BenchmarkRegisterHost(b *testing.B) {
	d, err := openDriverDevice(0)
	if err != nil {
		b.Skipf("no CUDA device: %v", err)
	}
	defer d.Close()
	const arena = 64 << 20
	for _, mapped := range []bool{false, true} {
		name := "unmapped"
		if mapped {
			name = "mapped"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(arena)
			for b.Loop() {
				b.StopTimer()
				mem, err := unix.Mmap(-1, 0, arena, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				if mapped {
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
				if err := unix.Munmap(mem); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
