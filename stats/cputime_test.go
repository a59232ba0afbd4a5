package stats

import (
	"runtime"
	"testing"
)

func TestThreadCPUAdvances(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is measured on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := ThreadCPU()
	if !ok {
		t.Fatal("ThreadCPU() ok = false on Linux, want true")
	}
	x := 0
	for i := range 5_000_000 {
		x += i ^ x
	}
	if b, _ := ThreadCPU(); b <= a {
		t.Errorf("ThreadCPU() = %v after a busy loop (x=%d), want more than %v", b, x, a)
	}
}

// TestThreadCPUResolution checks the clock is finer than the scheduler's
// tick: a loop of microseconds moves it, where getrusage's RUSAGE_THREAD,
// which moves in steps of 1 to 10 ms, mostly stays put.
func TestThreadCPUResolution(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is measured on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, _ := ThreadCPU()
	x := 0
	for i := range 10_000 {
		x += i ^ x
	}
	b, _ := ThreadCPU()
	if b <= a {
		t.Errorf("ThreadCPU() = %v after a 10,000-step loop (x=%d), want more than %v", b, x, a)
	}
}
