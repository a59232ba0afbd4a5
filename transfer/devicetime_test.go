package transfer

import (
	"testing"
	"time"

	"github.com/kvctl/kvctl/cuda"
)

// atEvent is an event that completed at a fixed time.
type atEvent struct {
	cuda.Event
	at time.Duration
}

func (e atEvent) Record(cuda.Stream) error { return nil }

func (e atEvent) Since(start cuda.Event) (time.Duration, error) {
	return e.at - start.(atEvent).at, nil
}

// TestDeviceTimerCountsTheUnion adds set intervals that follow each other,
// overlap and nest: the total is the time some set's copies were under
// way, each moment counted once.
func TestDeviceTimerCountsTheUnion(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		spans [][2]time.Duration
		want  time.Duration
	}{
		{"apart", [][2]time.Duration{{0, 2 * ms}, {3 * ms, 4 * ms}}, 3 * ms},
		{"overlapping", [][2]time.Duration{{0, 3 * ms}, {2 * ms, 5 * ms}, {4 * ms, 6 * ms}}, 6 * ms},
		{"nested", [][2]time.Duration{{1 * ms, 5 * ms}, {2 * ms, 3 * ms}, {6 * ms, 7 * ms}}, 5 * ms},
	}
	for _, tt := range tests {
		dt := deviceTimer{origin: atEvent{}}
		if err := dt.begin(nil); err != nil {
			t.Fatal(err)
		}
		for _, s := range tt.spans {
			dt.add(atEvent{at: s[0]}, atEvent{at: s[1]})
		}
		if dt.total != tt.want {
			t.Errorf("%s: deviceTimer total = %v, want %v", tt.name, dt.total, tt.want)
		}
	}
	var untimed deviceTimer
	untimed.add(atEvent{at: 0}, atEvent{at: ms})
	if untimed.total != 0 {
		t.Errorf("untimed deviceTimer total = %v, want 0", untimed.total)
	}
}
