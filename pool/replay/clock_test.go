package replay

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Advancing runs each tick the clock passes at its own instant, none
// between ticks, and never moves the clock back.
func TestClockTicks(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name  string
		steps []time.Duration // AdvanceTo Epoch plus each
		want  []time.Duration // tick instants after Epoch
		end   time.Duration
	}{
		{"within the first interval", []time.Duration{ms(3), ms(9)}, nil, ms(9)},
		{"onto a tick", []time.Duration{ms(10)}, []time.Duration{ms(10)}, ms(10)},
		{"past three ticks", []time.Duration{ms(35)}, []time.Duration{ms(10), ms(20), ms(30)}, ms(35)},
		{"backwards", []time.Duration{ms(25), ms(5)}, []time.Duration{ms(10), ms(20)}, ms(25)},
	}
	for _, tt := range tests {
		c := NewClock()
		var got []time.Duration
		c.OnTick(func() { got = append(got, c.Now().Sub(Epoch)) })
		for _, s := range tt.steps {
			c.AdvanceTo(Epoch.Add(s))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: tick instants (-want +got):\n%s", tt.name, diff)
		}
		if end := c.Now().Sub(Epoch); end != tt.end {
			t.Errorf("%s: Now() = Epoch+%v, want Epoch+%v", tt.name, end, tt.end)
		}
	}
}
