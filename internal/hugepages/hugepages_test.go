package hugepages

import (
	"testing"
	"unsafe"
)

// Memory advised is eligible for huge pages inside its whole 2 MiB pages;
// memory not advised is not, under the madvise setting.
func TestAdviseMakesWholeHugePagesEligible(t *testing.T) {
	if m := Mode(); m != "madvise" {
		t.Skipf("transparent huge pages: %q (the advice decides only under madvise)", m)
	}
	advised, plain := make([]byte, 6*Size), make([]byte, 6*Size)
	Advise(advised[1:]) // an unaligned start: only the whole pages inside
	for name, c := range map[string]struct {
		mem  []byte
		want bool
	}{"advised": {advised[2*Size:], true}, "plain": {plain[2*Size:], false}} {
		got, err := Eligible(c.mem)
		if err != nil {
			t.Skip(err)
		}
		if got != c.want {
			t.Errorf("%s memory: eligible %v, want %v", name, got, c.want)
		}
	}
}

// Advise takes memory of any length and start, empty included.
func TestAdviseTakesAnySlice(t *testing.T) {
	for _, n := range []int{0, 1, Size - 1, Size + 1} {
		Advise(make([]byte, n))
	}
	Advise(nil)
}

// A slab's arrays follow one another in its allocation, from a huge page
// boundary, each with the room asked for; an array larger than an
// allocation gets its own; the allocations are advised.
func TestSlabCarvesArraysFromAdvisedAllocations(t *testing.T) {
	var s Slab[int64]
	a, b := s.Take(100), s.Take(50)
	if len(a) != 0 || cap(a) != 100 || cap(b) != 50 {
		t.Fatalf("Take(100), Take(50) = len %d cap %d, cap %d", len(a), cap(a), cap(b))
	}
	if addr := uintptr(unsafe.Pointer(unsafe.SliceData(a))); addr%Size != 0 {
		t.Errorf("a slab's first array starts at %#x, not on a huge page", addr)
	}
	if &a[:100][99] == &b[:1][0] {
		t.Fatal("arrays overlap")
	}
	_ = append(a[:100], 7) // past its room: moves, leaving b alone
	if b[:1][0] != 0 {
		t.Fatal("appending past an array's room wrote into the next")
	}
	big := s.Take(slabBytes) // 8 bytes a value: four allocations' worth
	if cap(big) != slabBytes {
		t.Fatalf("Take(%d) = cap %d", slabBytes, cap(big))
	}
	if Mode() != "madvise" {
		t.Skipf("transparent huge pages: %q", Mode())
	}
	mem := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(big[:1]))), 8*cap(big))
	ok, err := Eligible(mem[2*Size:])
	if err != nil {
		t.Skip(err)
	}
	if !ok {
		t.Error("a slab's allocation is not eligible for huge pages")
	}
}
