package hugepages

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// heapChild marks the test process that AdviseHeap may change (it grows
// the heap once a process, and a plain allocation after it is advised),
// and says whether that process's next allocations should be eligible.
const heapChild = "KVCTL_HUGEPAGES_HEAP_CHILD"

// After AdviseHeap, the heap's next allocations lie in advised memory;
// before it, a fresh allocation does not (TestAdviseMakesWholeHugePagesEligible);
// with GODEBUG=disablethp=1 AdviseHeap leaves the heap alone. Each case
// runs in a process of its own, whose heap it changes.
func TestAdviseHeapAdvisesTheNextAllocations(t *testing.T) {
	if m := Mode(); m != "madvise" {
		t.Skipf("transparent huge pages: %q (the advice decides only under madvise)", m)
	}
	if want := os.Getenv(heapChild); want != "" {
		adviseHeapAndCheck(t, want == "eligible")
		return
	}
	for _, c := range []struct{ godebug, want string }{{"", "eligible"}, {"disablethp=1", "plain"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAdviseHeapAdvisesTheNextAllocations$", "-test.v")
		cmd.Env = append(os.Environ(), heapChild+"="+c.want, "GODEBUG="+c.godebug)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GODEBUG=%q, in the test's own process: %v\n%s", c.godebug, err, out)
		}
	}
}

// adviseHeapAndCheck grows the heap and checks that the allocations after
// it are eligible for huge pages, or not.
func adviseHeapAndCheck(t *testing.T, want bool) {
	AdviseHeap(minHeapGrowth)
	for _, n := range []int{8 << 20, 16 << 20} {
		mem := make([]byte, n)
		got, err := Eligible(mem[2*Size:])
		if err != nil {
			t.Skip(err)
		}
		if got != want {
			t.Errorf("an allocation of %d bytes after AdviseHeap: eligible for huge pages %v, want %v", n, got, want)
		}
	}
}

// Pieces are joined into spans across gaps of less than a huge page, in
// whatever order they come.
func TestPieceSpans(t *testing.T) {
	buf := make([]byte, 16*Size)
	at := func(off int) []byte { return buf[off : off+Size] }
	gap := Size / 64
	pieces := [][]byte{at(6 * Size), at(Size), at(12 * Size), at(0), at(2*Size + gap), at(8*Size - 1)}
	base := start(buf)
	want := []span{{base, 3*Size + uintptr(gap)}, {base + 6*Size, 3*Size - 1}, {base + 12*Size, Size}}
	if got := pieceSpans(pieces); !slices.Equal(got, want) {
		t.Errorf("pieceSpans = %v, want %v", got, want)
	}
}

// AdviseHeap takes any size, and does nothing below minHeapGrowth.
func TestAdviseHeapTakesAnySize(t *testing.T) {
	for _, n := range []int64{-1, 0, 1, Size - 1, minHeapGrowth - 1} {
		AdviseHeap(n)
	}
}

// GODEBUG's disablethp is read as the runtime reads it.
func TestHeapHugePagesOff(t *testing.T) {
	for godebug, want := range map[string]bool{
		"": false, "disablethp=1": true, "disablethp=0": false, "disablethp=2": true,
		"madvdontneed=1,disablethp=1": true, "disablethp=1,disablethp=0": false,
		"disablethp=1,disablethp=x": true, "disablethp": false, "xdisablethp=1": false,
	} {
		if got := heapHugePagesOff(godebug); got != want {
			t.Errorf("heapHugePagesOff(%q) = %v, want %v", godebug, got, want)
		}
	}
}

// The heap grows by what is asked, at most a quarter of a known memory.
func TestHeapGrowth(t *testing.T) {
	for _, c := range []struct{ n, total, want int64 }{
		{1700 << 20, 0, 1700 << 20}, {1700 << 20, 24 << 30, 1700 << 20},
		{100 << 30, 128 << 30, 32 << 30}, {1700 << 20, 4 << 30, 1 << 30},
	} {
		if got := heapGrowth(c.n, c.total); got != c.want {
			t.Errorf("heapGrowth(%d, %d) = %d, want %d", c.n, c.total, got, c.want)
		}
	}
}
