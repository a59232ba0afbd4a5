package stats

import (
	"runtime"
	"testing"
)

// A sampling recorder measures the CPU of its first operations, then of
// one in every; phases count every run either way.
func TestSampleCPU(t *testing.T) {
	if _, ok := ThreadCPU(); !ok {
		t.Skip("no thread CPU clock here")
	}
	runtime.LockOSThread() // CPU is measured only on one thread
	defer runtime.UnlockOSThread()
	tests := []struct {
		every, ops int
		wantCPU    int64
	}{
		{0, 300, 300},
		{1, 300, 300},
		{4, 200, 200},      // all within the first 256
		{4, 300, 256 + 11}, // then 260, 264, ..., 300
	}
	for _, tt := range tests {
		r := NewLoadRecorder(OpLoad)
		r.SampleCPU(tt.every)
		for range tt.ops {
			pt := r.Start(PhaseGet)
			pt.Next(PhasePut)
			pt.Stop()
		}
		for _, p := range []Phase{PhaseGet, PhasePut} {
			got := r.Total().Phases[p]
			if got.Count != int64(tt.ops) || got.CPUCount != tt.wantCPU {
				t.Errorf("SampleCPU(%d), %d ops: %v runs %d, CPU runs %d; want %d, %d", tt.every, tt.ops, p, got.Count, got.CPUCount, tt.ops, tt.wantCPU)
			}
		}
	}
}
