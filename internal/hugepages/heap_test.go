package hugepages

import (
	"os"
	"os/exec"
	"testing"
)

// heapChild marks the test process that AdviseHeap may change: it grows
// the heap once a process, and a plain allocation after it is advised.
const heapChild = "KVCTL_HUGEPAGES_HEAP_CHILD"

// After AdviseHeap, the heap's next allocations lie in advised memory;
// before it, a fresh allocation does not (TestAdviseMakesWholeHugePagesEligible).
// It runs in a process of its own, whose heap it changes.
func TestAdviseHeapAdvisesTheNextAllocations(t *testing.T) {
	if m := Mode(); m != "madvise" {
		t.Skipf("transparent huge pages: %q (the advice decides only under madvise)", m)
	}
	if os.Getenv(heapChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAdviseHeapAdvisesTheNextAllocations$", "-test.v")
		cmd.Env = append(os.Environ(), heapChild+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the test's own process: %v\n%s", err, out)
		}
		return
	}
	AdviseHeap(64 << 20)
	for _, n := range []int{8 << 20, 16 << 20} {
		mem := make([]byte, n)
		got, err := Eligible(mem[2*Size:])
		if err != nil {
			t.Skip(err)
		}
		if !got {
			t.Errorf("an allocation of %d bytes after AdviseHeap is not eligible for huge pages", n)
		}
	}
}

// AdviseHeap takes any size, and does nothing below a huge page.
func TestAdviseHeapTakesAnySize(t *testing.T) {
	for _, n := range []int64{-1, 0, 1, Size - 1} {
		AdviseHeap(n)
	}
}
