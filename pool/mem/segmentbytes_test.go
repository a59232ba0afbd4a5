package mem

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// SegmentBytes mounts segments of that size, as clients of
// global_segment_size do, the last one holding the remainder.
func TestSegmentBytes(t *testing.T) {
	tests := []struct {
		name            string
		capacity, bytes int64
		want            []int64
	}{
		{"divides", 12 << 10, 4 << 10, []int64{4 << 10, 4 << 10, 4 << 10}},
		{"last one smaller", 10 << 10, 4 << 10, []int64{4 << 10, 4 << 10, 2 << 10}},
		{"below one segment", 1 << 10, 4 << 10, []int64{1 << 10}},
	}
	for _, tt := range tests {
		s, _ := newTestStore(t, Options{Capacity: tt.capacity, SegmentBytes: tt.bytes, MetadataOnly: true})
		st, err := s.Stat(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, g := range st.Segments {
			got = append(got, g.CapacityBytes)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: segment capacities (-want +got):\n%s", tt.name, diff)
		}
	}
}

// A remainder too small for a segment, or a segment count that disagrees,
// is refused.
func TestSegmentBytesRefused(t *testing.T) {
	tests := []Options{
		{Capacity: 4<<10 + 32, SegmentBytes: 4 << 10},
		{Capacity: 8 << 10, SegmentBytes: 4 << 10, Segments: 4},
		{Capacity: 8 << 10, SegmentBytes: -1},
	}
	for _, o := range tests {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) = nil error, want one", o)
		}
	}
}
