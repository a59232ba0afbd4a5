package transfer

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
	a := threadCPU()
	x := 0
	for i := range 5_000_000 {
		x += i ^ x
	}
	if b := threadCPU(); b <= a {
		t.Errorf("threadCPU() = %v after a busy loop (x=%d), want more than %v", b, x, a)
	}
}
