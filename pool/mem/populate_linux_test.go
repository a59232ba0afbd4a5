package mem

import (
	"context"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/kvctl/kvctl/internal/hugepages"
	"github.com/kvctl/kvctl/pool"
	"golang.org/x/sys/unix"
)

// residentPages counts the pages of b the kernel has mapped (mincore).
func residentPages(t *testing.T, b []byte) (resident, all int) {
	t.Helper()
	vec := make([]byte, (len(b)+unix.Getpagesize()-1)/unix.Getpagesize())
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Skipf("mincore: %v", errno)
	}
	for _, v := range vec {
		resident += int(v & 1)
	}
	return resident, len(vec)
}

// populateArena maps every page of fresh memory, on its own goroutine.
func TestPopulateArenaMapsEveryPage(t *testing.T) {
	if err := unix.Madvise(make([]byte, 1<<20), unix.MADV_POPULATE_WRITE); err != nil {
		t.Skipf("madvise(MADV_POPULATE_WRITE): %v (Linux 5.14 on)", err)
	}
	mem, err := unix.Mmap(-1, 0, 5<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	if resident, _ := residentPages(t, mem); resident != 0 {
		t.Fatalf("a fresh mapping has %d pages mapped, want 0", resident)
	}
	populateArena(mem)
	resident, all := residentPages(t, mem)
	for deadline := time.Now().Add(5 * time.Second); resident < all && time.Now().Before(deadline); {
		time.Sleep(2 * time.Millisecond)
		resident, all = residentPages(t, mem)
	}
	if resident < all {
		t.Errorf("populateArena: %d of %d pages mapped after 5 s, want all", resident, all)
	}
}

// BenchmarkPopulate64MiB maps the pages of a fresh 64 MiB arena, as
// populateArena does, with base pages and with transparent huge pages
// asked for (hugepages.Advise).
func BenchmarkPopulate64MiB(b *testing.B) {
	const n = 64 << 20
	for _, huge := range []bool{false, true} {
		name := "base"
		if huge {
			name = "huge"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				b.StopTimer()
				mem, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
				if err != nil {
					b.Fatal(err)
				}
				if huge {
					hugepages.Advise(mem)
				}
				b.StartTimer()
				if err := unix.Madvise(mem, unix.MADV_POPULATE_WRITE); err != nil {
					b.Skipf("madvise(MADV_POPULATE_WRITE): %v", err)
				}
				b.StopTimer()
				unix.Munmap(mem)
				b.StartTimer()
			}
		})
	}
}

// An arena of large values is advised to be backed by huge pages; one of
// small values is not (under the madvise setting, where that decides).
func TestLargeValuesArenasAdvisedHugePages(t *testing.T) {
	mode := hugepages.Mode()
	if mode != "madvise" && mode != "always" {
		t.Skipf("transparent huge pages: %q", mode)
	}
	s, err := New(Options{Capacity: 64 << 20, Segments: 2, ArenaSize: 8 << 20, Eviction: EvictManual})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, size := range []int{64 << 10, 128} { // round-robin: segment 0, then 1
		if err := s.Put(context.Background(), []pool.PutItem{{Key: fmt.Sprint("k", size), Value: make([]byte, size)}}, make([]pool.Code, 1)); err != nil {
			t.Fatal(err)
		}
	}
	large, small := s.segs[0].arenas[0].mem, s.segs[1].arenas[0].mem
	if !eligible(t, large[2<<20:]) {
		t.Error("an arena of 64 KiB values is not eligible for huge pages")
	}
	if mode == "madvise" && eligible(t, small[2<<20:]) {
		t.Error("an arena of 128-byte values is eligible for huge pages under the madvise setting")
	}
}

// eligible is hugepages.Eligible, skipping the test where smaps cannot
// tell.
func eligible(t *testing.T, p []byte) bool {
	t.Helper()
	ok, err := hugepages.Eligible(p)
	if err != nil {
		t.Skip(err)
	}
	return ok
}
