package benchcpu

import (
	"testing"
	"time"
)

// TestProcessGrowsWithWork spins for 20 ms of wall time and checks that
// the process's CPU time grew by at least half of it.
func TestProcessGrowsWithWork(t *testing.T) {
	before := Process(t)
	sum := 0
	for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end); {
		sum++
	}
	if got := Process(t) - before; got < 10*time.Millisecond {
		t.Errorf("CPU time grew by %v over 20 ms of spinning (%d spins), want at least 10ms", got, sum)
	}
}
