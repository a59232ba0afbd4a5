package stats

import (
	"errors"
	"fmt"
	"math"
)

// Latency histogram buckets: LatencyBucketsPerDecade per factor of ten,
// from MinLatencyMS to MaxLatencyMS.
const (
	// LatencyBucketsPerDecade makes a bucket 10^(1/100) wide, 2.3 %: a
	// quantile read from the histogram is within 2.3 % of the sample's.
	LatencyBucketsPerDecade = 100
	// MinLatencyMS is the first bucket's lower edge (1 µs); shorter
	// latencies, 0 included, count in the first bucket.
	MinLatencyMS = 1e-3
	// MaxLatencyMS is the last bucket's upper edge (about 2.8 hours);
	// longer latencies count in the last bucket.
	MaxLatencyMS = 1e7
)

// Bucket indices: bucket i holds [10^(i/B), 10^((i+1)/B)) milliseconds.
const (
	firstLatencyBucket = -3 * LatencyBucketsPerDecade
	lastLatencyBucket  = 7*LatencyBucketsPerDecade - 1
)

// LatencyHistogram counts latencies in buckets of equal width on a log
// scale, so that its size does not grow with the number of samples: at
// most 1,000 buckets (ten decades of 100), and only the span from the
// first to the last bucket that holds a sample is kept. Bucket First+j
// holds Counts[j] latencies of 10^((First+j)/100) ms up to, not
// including, 10^((First+j+1)/100) ms.
type LatencyHistogram struct {
	// BucketsPerDecade is LatencyBucketsPerDecade; a reader checks it.
	BucketsPerDecade int `json:"buckets_per_decade"`
	// First is the index of Counts[0]'s bucket.
	First int `json:"first"`
	// Counts are the samples in each bucket from First on.
	Counts []int64 `json:"counts"`
}

// NewLatencyHistogram counts the latencies ms (milliseconds); nil when
// there are none.
func NewLatencyHistogram[T float32 | float64](ms []T) *LatencyHistogram {
	if len(ms) == 0 {
		return nil
	}
	var counts [lastLatencyBucket - firstLatencyBucket + 1]int64
	lo, hi := len(counts), -1
	last, i := ms[0], latencyBucket(float64(ms[0]))-firstLatencyBucket
	for _, v := range ms {
		if v != last { // a replay's samples mostly repeat the one before
			last, i = v, latencyBucket(float64(v))-firstLatencyBucket
		}
		counts[i]++
		lo, hi = min(lo, i), max(hi, i)
	}
	return &LatencyHistogram{BucketsPerDecade: LatencyBucketsPerDecade, First: lo + firstLatencyBucket,
		Counts: append([]int64(nil), counts[lo:hi+1]...)}
}

// latencyBucket is the index of the bucket that counts ms.
func latencyBucket(ms float64) int {
	if !(ms > MinLatencyMS) { // NaN too
		return firstLatencyBucket
	}
	i := int(math.Floor(math.Log10(ms) * LatencyBucketsPerDecade))
	return min(max(i, firstLatencyBucket), lastLatencyBucket)
}

// UpperMS is the upper edge of Counts[j]'s bucket, in milliseconds.
func (h *LatencyHistogram) UpperMS(j int) float64 {
	return math.Pow(10, float64(h.First+j+1)/LatencyBucketsPerDecade)
}

// LowerMS is the lower edge of Counts[j]'s bucket, in milliseconds.
func (h *LatencyHistogram) LowerMS(j int) float64 { return h.UpperMS(j - 1) }

// Total is the number of samples counted.
func (h *LatencyHistogram) Total() int64 {
	var n int64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Quantile is the upper edge of the bucket that holds the sample of rank
// q (0..1) in ascending order, as percentiles rank them
// (floor(q*(n-1))): within one bucket's width above that sample.
func (h *LatencyHistogram) Quantile(q float64) float64 {
	n := h.Total()
	if n == 0 {
		return 0
	}
	rank := int64(q * float64(n-1))
	var seen int64
	for j, c := range h.Counts {
		seen += c
		if seen > rank {
			return h.UpperMS(j)
		}
	}
	return h.UpperMS(len(h.Counts) - 1)
}

// ErrBadHistogram is wrapped by Validate's errors.
var ErrBadHistogram = errors.New("bad latency histogram")

// Validate checks a histogram read from JSON: kvctl's bucket width,
// buckets within the range, and counts that are not negative and add up
// without overflow.
func (h *LatencyHistogram) Validate() error {
	switch last := h.First + len(h.Counts) - 1; {
	case h.BucketsPerDecade != LatencyBucketsPerDecade:
		return fmt.Errorf("%w: %d buckets per decade, want %d", ErrBadHistogram, h.BucketsPerDecade, LatencyBucketsPerDecade)
	case h.First < firstLatencyBucket || last > lastLatencyBucket:
		return fmt.Errorf("%w: buckets %d to %d, want them within %d to %d", ErrBadHistogram, h.First, last, firstLatencyBucket, lastLatencyBucket)
	}
	var total int64
	for j, c := range h.Counts {
		if c < 0 || c > math.MaxInt64-total {
			return fmt.Errorf("%w: bucket %d counts %d samples", ErrBadHistogram, h.First+j, c)
		}
		total += c
	}
	return nil
}
