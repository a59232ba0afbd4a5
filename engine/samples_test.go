package engine

import (
	"slices"
	"testing"
)

// appendSample keeps every sample in order and at least doubles the room
// when it grows.
func TestAppendSample(t *testing.T) {
	var xs []float32
	var want []float32
	for i := range 5000 {
		before := cap(xs)
		xs = appendSample(xs, float32(i))
		want = append(want, float32(i))
		if c := cap(xs); c != before && c < max(2*before, 1024) {
			t.Fatalf("appendSample at len %d grew the room from %d to %d, want at least %d", i, before, c, max(2*before, 1024))
		}
	}
	if !slices.Equal(xs, want) {
		t.Errorf("appendSample of 0..4999 = %v..., want the samples in order", xs[:10])
	}
}
