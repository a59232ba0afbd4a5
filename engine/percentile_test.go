package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedPercentiles is the definition percentilesOf keeps: the elements
// at ranks q*(len-1) of a sorted copy.
func sortedPercentiles(xs []float64) Percentiles {
	if len(xs) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(q float64) float64 { return s[int(q*float64(len(s)-1))] }
	return Percentiles{P50: at(0.50), P90: at(0.90), P99: at(0.99)}
}

func TestPercentilesOf(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Percentiles
	}{
		{"empty", nil, Percentiles{}},
		{"one", []float64{7}, Percentiles{P50: 7, P90: 7, P99: 7}},
		{"two", []float64{9, 1}, Percentiles{P50: 1, P90: 1, P99: 1}},
		{"ten descending", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, Percentiles{P50: 5, P90: 9, P99: 9}},
		{"all equal", []float64{3, 3, 3, 3, 3}, Percentiles{P50: 3, P90: 3, P99: 3}},
		{"NaN sorts first", []float64{2, math.NaN(), 1, 0.5}, Percentiles{P50: 0.5, P90: 1, P99: 1}},
		{"infinity last", []float64{math.Inf(1), 1, 2, 3}, Percentiles{P50: 2, P90: 3, P99: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentilesOf(slices.Clone(tt.xs)); got != tt.want {
				t.Errorf("percentilesOf(%v) = %+v, want %+v", tt.xs, got, tt.want)
			}
		})
	}
}

// TestPercentilesOfMatchesSort holds the selection to the sort's ranks on
// random samples, many of them repeated as a replay's latencies are.
func TestPercentilesOfMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 5, 10, 99, 100, 101, 1000, 4097, 100_000} {
		for _, distinct := range []int{1, 3, 50, 1 << 30} {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(rng.IntN(distinct)) / 4
			}
			if n > 2 {
				xs[n/2] = math.NaN()
			}
			want := sortedPercentiles(xs)
			got := percentilesOf(slices.Clone(xs))
			if !samePercentiles(got, want) {
				t.Errorf("percentilesOf(%d samples of %d values) = %+v, want %+v", n, distinct, got, want)
			}
		}
	}
}

// samePercentiles compares percentiles, NaN equal to NaN.
func samePercentiles(a, b Percentiles) bool {
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return same(a.P50, b.P50) && same(a.P90, b.P90) && same(a.P99, b.P99)
}

func TestPercentilesOfFloat32(t *testing.T) {
	xs := []float32{0.25, 4, 1, 2, 0.5}
	if got, want := percentilesOf(xs), (Percentiles{P50: 1, P90: 2, P99: 2}); got != want {
		t.Errorf("percentilesOf(%v) = %+v, want %+v", xs, got, want)
	}
}

func BenchmarkPercentilesOf(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]float32, 4<<20)
	for i := range src {
		src[i] = float32(rng.IntN(2000)) / 8
	}
	xs := make([]float32, len(src))
	for b.Loop() {
		copy(xs, src)
		percentilesOf(xs)
	}
}
