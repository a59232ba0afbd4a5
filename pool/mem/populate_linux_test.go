package mem

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

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
// asked for (adviseHuge).
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
					adviseHuge(mem)
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

// thpMode is the system's transparent huge page setting ("always",
// "madvise" or "never"), "" where it cannot be read.
func thpMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	s := string(b)
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
}

// thpEligible reads whether the mapping holding p may be backed by huge
// pages (the THPeligible line of /proc/self/smaps).
func thpEligible(t *testing.T, p []byte) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("smaps: %v", err)
	}
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(p))))
	inside := false
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(f[0], "-"); ok && len(f) >= 5 {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			inside = err1 == nil && err2 == nil && addr >= l && addr < h
			continue
		}
		if inside && f[0] == "THPeligible:" && len(f) == 2 {
			return f[1] == "1"
		}
	}
	t.Skipf("smaps has no THPeligible line for %#x", addr)
	return false
}

// An arena of large values is advised to be backed by huge pages; one of
// small values is not (under the madvise setting, where that decides).
func TestLargeValuesArenasAdvisedHugePages(t *testing.T) {
	mode := thpMode()
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
	if !thpEligible(t, large[2<<20:]) {
		t.Error("an arena of 64 KiB values is not eligible for huge pages")
	}
	if mode == "madvise" && thpEligible(t, small[2<<20:]) {
		t.Error("an arena of 128-byte values is eligible for huge pages under the madvise setting")
	}
}
