package stats

import (
	"runtime"
	"testing"
	"time"
)

func TestSpanCPU(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name                string
		before, after, wall time.Duration
		want                time.Duration
		wantOK              bool
	}{
		{"within the wall time", 10 * ms, 13 * ms, 5 * ms, 3 * ms, true},
		{"all of it", 10 * ms, 15 * ms, 5 * ms, 5 * ms, true},
		{"ahead by less than the slack", 10 * ms, 15*ms + cpuSlack, 5 * ms, 5*ms + cpuSlack, true},
		{"ahead by more", 10 * ms, 200 * ms, 5 * ms, 5 * ms, false},
		{"clock went back", 10 * ms, 9 * ms, 5 * ms, 0, false},
		{"no time passed", 10 * ms, 10 * ms, 0, 0, true},
	}
	for _, tt := range tests {
		got, ok := SpanCPU(tt.before, tt.after, tt.wall)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("%s: SpanCPU(%v, %v, %v) = %v, %v; want %v, %v", tt.name, tt.before, tt.after, tt.wall, got, ok, tt.want, tt.wantOK)
		}
	}
}

// A phase whose thread clock gave more CPU than its wall time (as a
// virtual machine's clock, or a goroutine that changed threads, can) is
// counted without a CPU sample, not with the impossible one.
func TestPhaseTimerDropsCPUBeyondWall(t *testing.T) {
	if _, ok := ThreadCPU(); !ok {
		t.Skip("no thread CPU clock here")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := NewLoadRecorder(OpLoad)
	pt := r.Start(PhaseGet)
	pt.cpu -= time.Second // as if read on a thread that had run a second less
	pt.Next(PhasePut)
	pt.Stop()
	get, put := r.Total().Phases[PhaseGet], r.Total().Phases[PhasePut]
	if get.Count != 1 || get.CPUCount != 0 || get.CPU != 0 {
		t.Errorf("get: %d runs, %d with CPU, %v CPU; want 1, 0, 0", get.Count, get.CPUCount, get.CPU)
	}
	if put.Count != 1 || put.CPUCount != 1 {
		t.Errorf("put: %d runs, %d with CPU; want 1, 1", put.Count, put.CPUCount)
	}
}
