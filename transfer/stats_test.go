package transfer

import (
	"bytes"
	"runtime/trace"
	"testing"

	"github.com/kvctl/kvctl/stats"
)

// TestPhaseLapsShowInAnExecutionTrace checks that an execution trace
// (kvctl --exectrace) names the end of each phase a measured call laps.
func TestPhaseLapsShowInAnExecutionTrace(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("an execution trace of the test binary is running")
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	c := newPhaseClock(true)
	c.lap(stats.PhaseUnstage)
	c.stop()
	trace.Stop()
	for _, name := range []string{"transfer phase", stats.PhaseUnstage.String()} {
		if !bytes.Contains(buf.Bytes(), []byte(name)) {
			t.Errorf("the execution trace (%d bytes) does not name %q", buf.Len(), name)
		}
	}
	if c.times[stats.PhaseUnstage] <= 0 {
		t.Errorf("lap charged %v to unstage, want a positive time", c.times[stats.PhaseUnstage])
	}
}
