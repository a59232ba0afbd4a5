package transfer

import (
	"testing"

	"github.com/kvctl/kvctl/internal/tracetest"
	"github.com/kvctl/kvctl/stats"
)

// TestPhaseLapsShowInAnExecutionTrace checks that an execution trace
// (kvctl --exectrace) names the end of each phase a measured call laps.
func TestPhaseLapsShowInAnExecutionTrace(t *testing.T) {
	c := newPhaseClock(true)
	tr := tracetest.Record(t, func() {
		c.lap(stats.PhaseUnstage)
		c.stop()
	})
	tracetest.CheckNames(t, tr, "transfer phase", stats.PhaseUnstage.String())
	if c.times[stats.PhaseUnstage] <= 0 {
		t.Errorf("lap charged %v to unstage, want a positive time", c.times[stats.PhaseUnstage])
	}
}
