package mem

import "testing"

func TestCapacityFor(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name  string
		count int64
		sizes []int64
		want  int64
	}{
		{"nothing: the 64 MiB floor", 0, nil, 64 * mib},
		{"small: the floor", 1000, []int64{128}, 64 * mib},
		// 4,531,251 blocks of one 128-byte page: 580,000,128 bytes / 0.85
		// = 682,353,091, rounded up to 651 MiB.
		{"the conversation trace", 145_000_000/32 + 1, []int64{128}, 651 * mib},
		// 100 bytes take a 128-byte granule: 1M * (128+64) / 0.85.
		{"rounded to the granule", 1 << 20, []int64{100, 1}, 226 * mib},
		// 65 MiB takes its 72 MiB bin: 10 * 72 MiB / 0.85 = 847.06 MiB.
		{"rounded to the bin", 10, []int64{65 * mib}, 848 * mib},
	}
	for _, tt := range tests {
		got := CapacityFor(tt.count, tt.sizes)
		if got != tt.want {
			t.Errorf("CapacityFor(%d, %v) = %d, want %d (%s)", tt.count, tt.sizes, got, tt.want, tt.name)
		}
	}
}

// HeapFor counts each value as CapacityFor does, with no headroom or floor,
// and heapPerKey for each key.
func TestHeapFor(t *testing.T) {
	for _, tt := range []struct {
		count int64
		sizes []int64
		want  int64
	}{
		{0, []int64{128}, 0},
		{1000, []int64{128}, 1000 * (128 + heapPerKey)},
		{1 << 20, []int64{100, 1}, 1 << 20 * (128 + 64 + 2*heapPerKey)}, // the granules of TestCapacityFor
		{10, []int64{65 << 20}, 10 * (72<<20 + heapPerKey)},             // the 72 MiB bin
	} {
		if got := HeapFor(tt.count, tt.sizes); got != tt.want {
			t.Errorf("HeapFor(%d, %v) = %d, want %d", tt.count, tt.sizes, got, tt.want)
		}
	}
}
