package stats

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTimelineIntervals(t *testing.T) {
	tl := NewTimeline(1000)
	var total Holes
	for _, at := range []float64{500, 1000, 1500, 2200} {
		if !tl.Due(at) {
			continue
		}
		total.PromptTokens += 100
		total.HitTokens += int64(at / 10)
		tl.Add(at, total, int64(at), 4000)
	}
	want := []TimelineSample{
		{AtMS: 1000, PromptTokens: 100, HitTokens: 100, HitRate: 1, PoolUsedBytes: 1000, PoolCapacityBytes: 4000},
		{AtMS: 2200, PromptTokens: 100, HitTokens: 220, HitRate: 2.2, PoolUsedBytes: 2200, PoolCapacityBytes: 4000},
	}
	if diff := cmp.Diff(want, tl.Samples()); diff != "" {
		t.Errorf("Samples() mismatch (-want +got):\n%s", diff)
	}
}

func TestTimelineBounded(t *testing.T) {
	tl := NewTimeline(1)
	var total Holes
	const steps = 10_000
	for at := 1; at <= steps; at++ {
		if tl.Due(float64(at)) {
			total.PromptTokens += 10
			total.HitTokens += 5
			tl.Add(float64(at), total, int64(at), steps)
		}
	}
	got := tl.Samples()
	if len(got) > MaxTimelineSamples || len(got) < MaxTimelineSamples/2 {
		t.Fatalf("NewTimeline(1) over %d ms kept %d samples, want %d to %d", steps, len(got), MaxTimelineSamples/2, MaxTimelineSamples)
	}
	var prompt, hit int64
	for i, s := range got {
		prompt, hit = prompt+s.PromptTokens, hit+s.HitTokens
		if s.HitRate != 0.5 {
			t.Errorf("sample %d hit rate = %v, want 0.5", i, s.HitRate)
		}
		if i > 0 && s.AtMS <= got[i-1].AtMS {
			t.Errorf("sample %d at %v ms, not after sample %d at %v", i, s.AtMS, i-1, got[i-1].AtMS)
		}
	}
	if prompt != total.PromptTokens || hit != total.HitTokens {
		t.Errorf("samples add up to %d prompt and %d hit tokens, want %d and %d", prompt, hit, total.PromptTokens, total.HitTokens)
	}
	if last := got[len(got)-1]; last.PoolUsedBytes != int64(last.AtMS) {
		t.Errorf("last sample's occupancy %d at %v ms, want that instant's", last.PoolUsedBytes, last.AtMS)
	}
}
