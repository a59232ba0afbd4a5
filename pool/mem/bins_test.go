package mem

import (
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// TestBinRoundUp checks the sizes upstream's offset allocator consumes
// (offset_allocator.cpp, SmallFloat::uintToFloatRoundUp and
// OffsetAllocator::allocate): page sizes of the form m*2^k with m <= 15
// are exact, others round up by less than 12.5%, in quanta of 2^qbits.
func TestBinRoundUp(t *testing.T) {
	const kib, mib = 1 << 10, 1 << 20
	tests := []struct {
		n     int64
		qbits uint
		want  int64
	}{
		{1, 0, 1},
		{7, 0, 7},
		{8, 0, 8},
		{15, 0, 15},
		{17, 0, 18},
		{1000, 0, 1024},
		{64 * kib, 0, 64 * kib},
		{28 * mib, 0, 28 * mib},
		{32 * mib, 0, 32 * mib},
		{40 * mib, 0, 40 * mib},
		{160 * mib, 0, 160 * mib},
		{65 * mib, 0, 72 * mib},
		{64*mib + 1, 0, 72 * mib},
		{60*kib + 1, 0, 64 * kib},
		{3200 * mib, 0, 3328 * mib},
		{3072 * mib, 0, 3072 * mib},
		{1, 3, 8},
		{9, 3, 16},
		{160 * mib, 3, 160 * mib},
		{65*mib + 1, 3, 72 * mib},
	}
	for _, tt := range tests {
		got := binRoundUp(tt.n, tt.qbits)
		if got != tt.want {
			t.Errorf("binRoundUp(%d, %d) = %d, want %d", tt.n, tt.qbits, got, tt.want)
		}
		if tt.qbits == 0 && tt.n >= 8 && float64(got) >= float64(tt.n)*1.125 {
			t.Errorf("binRoundUp(%d, 0) = %d, 12.5%% or more above", tt.n, got)
		}
	}
}

func TestQuantumBits(t *testing.T) {
	tests := []struct {
		capacity int64
		want     uint
	}{
		{1 << 20, 0},
		{3200 << 20, 0},
		{maxBinSize, 0},
		{maxBinSize + 1, 1},
		{16 << 30, 3},
	}
	for _, tt := range tests {
		if got := quantumBits(tt.capacity); got != tt.want {
			t.Errorf("quantumBits(%d) = %d, want %d", tt.capacity, got, tt.want)
		}
	}
}

// TestAllocationRoundsToBinsUsedCountsSizes checks that a pool fills by
// bin sizes while UsedBytes, the ratio eviction compares with the
// watermark, counts the sizes put (allocator.cpp, OffsetBufferAllocator::
// allocate adds the requested size to cur_size_).
func TestAllocationRoundsToBinsUsedCountsSizes(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		page int64
		want int64 // pages a 4 GiB segment holds
	}{
		{28 * mib, 146},
		{40 * mib, 102},
		{160 * mib, 25},
		{65 * mib, 56}, // 72 MiB each
	}
	for _, tt := range tests {
		s, _ := newTestStore(t, Options{Capacity: 4096 * mib, Segments: 1, MetadataOnly: true, Eviction: EvictManual})
		var stored int64
		for i := range 200 {
			if put(t, s, pool.PutItem{Key: keysN("p", 200)[i], Size: tt.page})[0] == pool.OK {
				stored++
			}
		}
		st := stat(t, s)
		if stored != tt.want || st.UsedBytes != stored*tt.page {
			t.Errorf("%d-byte pages in 4 GiB: %d stored, %d bytes used, want %d and %d", tt.page, stored, st.UsedBytes, tt.want, tt.want*tt.page)
		}
		checkInvariants(t, s)
	}
}

// TestSegmentSizedObjectRoundsPastTheSegment checks upstream's limit: in a
// 3.125 GiB segment a 3.125 GiB object rounds up to a 3.25 GiB bin and
// finds no room, while a 3 GiB one (an exact bin) fits.
func TestSegmentSizedObjectRoundsPastTheSegment(t *testing.T) {
	const mib = 1 << 20
	s, _ := newTestStore(t, Options{Capacity: 3200 * mib, Segments: 1, MetadataOnly: true, Eviction: EvictManual})
	got := put(t, s, pool.PutItem{Key: "whole", Size: 3200 * mib}, pool.PutItem{Key: "bin", Size: 3072 * mib})
	if got[0] != pool.NoAvailableHandle || got[1] != pool.OK {
		t.Errorf("Put(3.125 GiB, 3 GiB) in a 3.125 GiB segment = %v, want NO_AVAILABLE_HANDLE, OK", got)
	}
}
