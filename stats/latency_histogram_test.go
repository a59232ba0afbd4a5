package stats

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestLatencyHistogramQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ms := make([]float64, 12_031) // the requests of the conversation trace
	for i := range ms {
		ms[i] = math.Exp(rng.NormFloat64()*1.5 + 4) // log-normal around 55 ms
	}
	h := NewLatencyHistogram(ms)
	if got := h.Total(); got != int64(len(ms)) {
		t.Errorf("Total() = %d, want %d", got, len(ms))
	}
	sorted := slices.Sorted(slices.Values(ms))
	width := math.Pow(10, 1.0/LatencyBucketsPerDecade)
	for _, q := range []float64{0, 0.5, 0.9, 0.99, 1} {
		exact := sorted[int(q*float64(len(sorted)-1))]
		if got := h.Quantile(q); got < exact || got > exact*width {
			t.Errorf("Quantile(%v) = %v, want %v to %v", q, got, exact, exact*width)
		}
	}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	// Only the decades the samples span are kept, 100 buckets each; the
	// JSON is a few bytes a bucket, and 1,000 buckets at most.
	span := int(math.Ceil(math.Log10(sorted[len(sorted)-1]/sorted[0])*LatencyBucketsPerDecade)) + 1
	if len(h.Counts) > span || len(b) > 8*span {
		t.Errorf("histogram of %d samples has %d buckets, %d bytes of JSON; want at most %d and %d", len(ms), len(h.Counts), len(b), span, 8*span)
	}
}

func TestLatencyHistogramEdges(t *testing.T) {
	tests := []struct {
		ms         []float32
		first      int
		wantCounts []int64
	}{
		{[]float32{0, 1e-9, float32(math.NaN())}, firstLatencyBucket, []int64{3}},
		{[]float32{1e9, 1e8}, lastLatencyBucket, []int64{2}},
		{[]float32{1, 1.01, 1.03, 1.1}, 0, []int64{2, 1, 0, 0, 1}},
	}
	for _, tt := range tests {
		h := NewLatencyHistogram(tt.ms)
		if h.First != tt.first || !slices.Equal(h.Counts, tt.wantCounts) {
			t.Errorf("NewLatencyHistogram(%v) = first %d, counts %v; want first %d, counts %v", tt.ms, h.First, h.Counts, tt.first, tt.wantCounts)
		}
		if err := h.Validate(); err != nil {
			t.Errorf("NewLatencyHistogram(%v).Validate() = %v", tt.ms, err)
		}
	}
	if h := NewLatencyHistogram([]float64(nil)); h != nil {
		t.Errorf("NewLatencyHistogram(nil) = %+v, want nil", h)
	}
}

func TestLatencyHistogramValidate(t *testing.T) {
	tests := []struct {
		name string
		h    LatencyHistogram
	}{
		{"other width", LatencyHistogram{BucketsPerDecade: 10, Counts: []int64{1}}},
		{"below range", LatencyHistogram{BucketsPerDecade: 100, First: firstLatencyBucket - 1, Counts: []int64{1}}},
		{"above range", LatencyHistogram{BucketsPerDecade: 100, First: lastLatencyBucket, Counts: []int64{1, 1}}},
		{"negative count", LatencyHistogram{BucketsPerDecade: 100, Counts: []int64{1, -1}}},
		{"counts overflow", LatencyHistogram{BucketsPerDecade: 100, Counts: []int64{math.MaxInt64, 1}}},
	}
	for _, tt := range tests {
		if err := tt.h.Validate(); !errors.Is(err, ErrBadHistogram) {
			t.Errorf("Validate(%s) = %v, want ErrBadHistogram", tt.name, err)
		}
	}
}

// TestLatencyHistogramRepeats checks runs of repeated samples, which
// reuse the bucket of the sample before, against each sample's own
// bucket.
func TestLatencyHistogramRepeats(t *testing.T) {
	nan := math.NaN()
	tests := [][]float64{
		{2.5, 2.5, 2.5, 166, 166, 2.5},
		{nan, nan, 1, 1, nan},
		{0, 0, 1e-4, 1e-4, 3},
		{7},
	}
	for _, ms := range tests {
		var want [lastLatencyBucket - firstLatencyBucket + 1]int64
		for _, v := range ms {
			want[latencyBucket(v)-firstLatencyBucket]++
		}
		h := NewLatencyHistogram(ms)
		var got [lastLatencyBucket - firstLatencyBucket + 1]int64
		copy(got[h.First-firstLatencyBucket:], h.Counts)
		if got != want {
			t.Errorf("NewLatencyHistogram(%v) counts %v from bucket %d, want one per sample's bucket", ms, h.Counts, h.First)
		}
	}
}
