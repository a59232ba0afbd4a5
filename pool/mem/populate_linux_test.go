package mem

import (
	"testing"
	"time"
	"unsafe"

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
