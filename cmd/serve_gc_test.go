package cmd

import (
	"runtime/debug"
	"testing"

	"github.com/kvctl/kvctl/engine"
)

// gcPercent reads the GOGC percentage without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

func TestCollectorOffToReport(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(73))
	tests := []struct {
		limit  int64
		during int
	}{
		{limit: engine.SuggestedMemoryLimit, during: -1},
		{limit: 0, during: 73}, // a run that keeps the collector on
	}
	for _, tt := range tests {
		restore := collectorOffToReport(engine.Config{MemoryLimit: tt.limit})
		if got := gcPercent(); got != tt.during {
			t.Errorf("collectorOffToReport(MemoryLimit %d): GOGC = %d, want %d", tt.limit, got, tt.during)
		}
		restore()
		if got := gcPercent(); got != 73 {
			t.Errorf("collectorOffToReport(MemoryLimit %d), restored: GOGC = %d, want 73", tt.limit, got)
		}
	}
}
