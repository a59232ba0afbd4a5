package benchcpu

import (
	"testing"
	"time"
)

// TestProcessGrowsWithWork spins until the process's CPU time grew by 10
// ms, which a clock that does not count work never does: the spinning
// gives up after 10 s of wall time. Bounded by CPU time rather than by
// wall time, it holds on a loaded machine too (a 20 ms spin got 8 ms of
// CPU while a CI run's other packages took both cores of the 2-core
// development VM).
func TestProcessGrowsWithWork(t *testing.T) {
	const want, patience = 10 * time.Millisecond, 10 * time.Second
	before := Process(t)
	deadline := time.Now().Add(patience)
	spins := 0
	for Process(t)-before < want {
		if time.Now().After(deadline) {
			t.Fatalf("CPU time grew by %v in %v of spinning (%d spins), want %v", Process(t)-before, patience, spins, want)
		}
		for range 10000 {
			spins++
		}
	}
}
