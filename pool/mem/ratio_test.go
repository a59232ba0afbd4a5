package mem

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// TestZeroEvictionRatio checks eviction_ratio=0 as the master runs it: a
// failed allocation no longer triggers eviction, the watermark still
// does, with target u-hw.
func TestZeroEvictionRatio(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 10 * 1024, Segments: 1, ZeroEvictionRatio: true})
	if r := s.Options().EvictionRatio; r != 0 {
		t.Fatalf("Options().EvictionRatio = %v, want 0", r)
	}
	mustPut(t, s, sized("a", 6*1024, pool.PutOptions{}))
	clock.Advance(time.Second)
	if got := put(t, s, sized("b", 5*1024, pool.PutOptions{})); got[0] != pool.NoAvailableHandle {
		t.Fatalf("Put(5 KiB into 4 KiB free) = %v, want NO_AVAILABLE_HANDLE", got[0])
	}
	if step := s.RunEvictionStep(); step.Ran {
		t.Errorf("RunEvictionStep() after a failed allocation with ratio 0 ran: %+v", step)
	}
	mustPut(t, s, sized("c", 3*1024+512, pool.PutOptions{}))
	clock.Advance(time.Second)
	step := s.RunEvictionStep()
	if want := step.UsedRatio - DefaultHighWatermark; !step.Ran || math.Abs(step.Target-want) > 1e-12 {
		t.Errorf("RunEvictionStep() at %v used = %+v, want a run at target %v", step.UsedRatio, step, want)
	}
}

// TestZeroHighWatermark checks that a watermark of 0 is accepted and makes
// every step run once the pool holds anything.
func TestZeroHighWatermark(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 10 * 1024, Segments: 1, ZeroHighWatermark: true})
	if step := s.RunEvictionStep(); step.Ran {
		t.Errorf("RunEvictionStep() of an empty pool ran: %+v", step)
	}
	mustPut(t, s, sized("a", 64, pool.PutOptions{}))
	clock.Advance(time.Second)
	if step := s.RunEvictionStep(); !step.Ran || step.Pass1 != 1 {
		t.Errorf("RunEvictionStep() with watermark 0 = %+v, want a run evicting the one object", step)
	}
}

func TestRatioValidation(t *testing.T) {
	tests := []struct {
		opts Options
		want string // "" when valid
	}{
		{Options{HighWatermark: 1, EvictionRatio: 1}, ""},
		{Options{ZeroHighWatermark: true, ZeroEvictionRatio: true}, ""},
		{Options{HighWatermark: 1.5}, "high watermark 1.5 is outside [0, 1]"},
		{Options{EvictionRatio: -0.5}, "eviction ratio -0.5 is outside [0, 1]"},
		{Options{EvictionRatio: math.NaN()}, "eviction ratio NaN"},
		{Options{ZeroEvictionRatio: true, EvictionRatio: 0.1}, "zero eviction ratio with eviction ratio 0.1"},
		{Options{ZeroHighWatermark: true, HighWatermark: 0.5}, "zero high watermark with high watermark 0.5"},
	}
	for _, tt := range tests {
		_, err := tt.opts.withDefaults()
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("withDefaults(%+v) = %v, want %q", tt.opts, err, tt.want)
		}
	}
}

func TestWithRatios(t *testing.T) {
	tests := []struct{ ratio, hw, wantRatio, wantHW float64 }{
		{0, 0, 0, 0},
		{0.15, 1, 0.15, 1},
		{0, 0.5, 0, 0.5},
	}
	for _, tt := range tests {
		o, err := Options{Capacity: 1 << 20}.WithRatios(tt.ratio, tt.hw).withDefaults()
		if err != nil || o.EvictionRatio != tt.wantRatio || o.HighWatermark != tt.wantHW {
			t.Errorf("WithRatios(%v, %v): ratio %v, watermark %v, %v; want %v, %v", tt.ratio, tt.hw, o.EvictionRatio, o.HighWatermark, err, tt.wantRatio, tt.wantHW)
		}
	}
}
