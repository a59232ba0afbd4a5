package sysmem

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// On Linux the total is /proc/meminfo's MemTotal, which the kernel fills
// from the same counter sysinfo(2) reads.
func TestTotalMatchesMeminfo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sysinfo(2) is read on Linux only")
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skip("no /proc/meminfo:", err)
	}
	var kib int64
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kib, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	if kib == 0 {
		t.Skip("no MemTotal in /proc/meminfo")
	}
	got, want := Total(), kib<<10
	if diff := got - want; diff < -(1<<20) || diff > 1<<20 {
		t.Errorf("Total() = %d, want /proc/meminfo's MemTotal %d (within 1 MiB)", got, want)
	}
}

func TestFits(t *testing.T) {
	if Total() == 0 {
		t.Skip("memory unknown here: everything fits")
	}
	if !Fits(1 << 20) {
		t.Error("Fits(1 MiB) = false")
	}
	if Fits(Total() + 1) {
		t.Error("Fits(Total()+1) = true")
	}
}
