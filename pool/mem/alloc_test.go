package mem

import (
	"math/rand/v2"
	"testing"
)

func TestBins(t *testing.T) {
	tests := []struct {
		n        int64
		down, up int
		downLow  int64
	}{
		{1, 1, 1, 1},
		{7, 7, 7, 7},
		{8, 8, 8, 8},
		{9, 9, 9, 9},
		{16, 16, 16, 16},
		{17, 16, 17, 16},
		{18, 17, 17, 18},
		{64, 32, 32, 64},
		{65, 32, 33, 64},
		{65536, 112, 112, 65536},
		{65600, 112, 113, 65536},
		{73728, 113, 113, 73728},
	}
	for _, tt := range tests {
		if got := binDown(tt.n); got != tt.down {
			t.Errorf("binDown(%d) = %d, want %d", tt.n, got, tt.down)
		}
		if got := binUp(tt.n); got != tt.up {
			t.Errorf("binUp(%d) = %d, want %d", tt.n, got, tt.up)
		}
		if got := binLow(binDown(tt.n)); got != tt.downLow {
			t.Errorf("binLow(binDown(%d)) = %d, want %d", tt.n, got, tt.downLow)
		}
	}
	for n := int64(1); n < 1<<20; n = n*9/8 + 1 {
		b := binDown(n)
		if binLow(b) > n || binLow(b+1) <= n {
			t.Fatalf("bin %d = [%d, %d) does not hold %d", b, binLow(b), binLow(b+1), n)
		}
		if binLow(binUp(n)) < n {
			t.Fatalf("binUp(%d) = %d starts at %d, below the size", n, binUp(n), binLow(binUp(n)))
		}
	}
	if b := binDown(MaxCapacity); b >= binCount-1 {
		t.Errorf("binDown(MaxCapacity) = %d, want below %d", b, binCount-1)
	}
}

func TestSegmentOpensArenasLazily(t *testing.T) {
	g := newSegment("s", 10*1024, 4096, false)
	if len(g.arenas) != 0 {
		t.Fatalf("a new segment has %d arenas, want 0", len(g.arenas))
	}
	var offs []int64
	for range 4 {
		off, ok := g.alloc(2048, false)
		if !ok {
			t.Fatalf("alloc(2048) failed with %d used", g.used)
		}
		offs = append(offs, off)
	}
	if len(g.arenas) != 2 || g.openedEnd != 8192 {
		t.Errorf("after 8 KiB, %d arenas up to %d, want 2 up to 8192", len(g.arenas), g.openedEnd)
	}
	if off, ok := g.alloc(4096, false); ok {
		t.Errorf("alloc(4096) in the 2 KiB left = %d, want failure", off)
	}
	if _, ok := g.alloc(2048, false); !ok {
		t.Errorf("alloc(2048) in the 2 KiB last arena failed")
	}
	if _, ok := g.alloc(64, false); ok {
		t.Errorf("alloc(64) in a full segment succeeded")
	}
	g.free(offs[1], 2048)
	g.free(offs[0], 2048)
	if off, ok := g.alloc(4096, false); !ok || off != 0 {
		t.Errorf("alloc(4096) after freeing arena 0 = %d, %t, want 0, true", off, ok)
	}
	checkSegment(t, g)
}

// TestSegmentOpensArenaOfObjectSize checks that an allocation larger than
// the arena size opens an arena of its own size, and that the bytes of
// every allocation lie in one arena.
func TestSegmentOpensArenaOfObjectSize(t *testing.T) {
	g := newSegment("s", 64*1024, 4096, false)
	small, _ := g.alloc(1024, false)
	big, ok := g.alloc(20*1024, false)
	if !ok {
		t.Fatalf("alloc(20 KiB) in a 64 KiB segment of 4 KiB arenas failed")
	}
	want := []arena{{start: 0, end: 4096}, {start: 4096, end: 4096 + 20*1024}}
	if len(g.arenas) != 2 || g.arenas[0].start != want[0].start || g.arenas[0].end != want[0].end || g.arenas[1].start != want[1].start || g.arenas[1].end != want[1].end {
		t.Fatalf("arenas after alloc(1 KiB) and alloc(20 KiB) = %+v, want %+v", g.arenas, want)
	}
	if small != 0 || big != 4096 || len(g.arenaAt(big).bytes(big, 20*1024)) != 20*1024 {
		t.Errorf("offsets = %d, %d, want 0, 4096 with 20 KiB of bytes", small, big)
	}
	if _, ok := g.alloc(48*1024, false); ok {
		t.Errorf("alloc(48 KiB) with 40 KiB unopened succeeded")
	}
	checkSegment(t, g)
}

// TestSegmentMetadataOnlyIsContiguous checks that without bytes a segment
// is one contiguous range: an allocation may take it whole, and sizes that
// leave arena tails in byte mode pack as a contiguous allocator packs them.
func TestSegmentMetadataOnlyIsContiguous(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		capacity, n int64
		want        int
	}{
		{4096 * mib, 28 * mib, 146},
		{4096 * mib, 40 * mib, 102},
		{4096 * mib, 160 * mib, 25},
		{4096 * mib, 4096 * mib, 1},
	}
	for _, tt := range tests {
		g := newSegment("s", tt.capacity, DefaultArenaSize, true)
		got := 0
		for {
			if _, ok := g.alloc(tt.n, false); !ok {
				break
			}
			got++
		}
		if got != tt.want {
			t.Errorf("allocations of %d in a %d-byte metadata-only segment = %d, want %d", tt.n, tt.capacity, got, tt.want)
		}
		checkSegment(t, g)
	}
}

func TestSegmentNoAllocationCrossesArenas(t *testing.T) {
	g := newSegment("s", 1<<20, 3*1024, false)
	rng := rand.New(rand.NewPCG(1, 2))
	type alloc struct{ off, n int64 }
	var live []alloc
	for i := range 20000 {
		if len(live) > 0 && rng.IntN(3) == 0 {
			j := rng.IntN(len(live))
			g.free(live[j].off, live[j].n)
			live[j] = live[len(live)-1]
			live = live[:len(live)-1]
			continue
		}
		n := alignUp(1 + rng.Int64N(5*1024))
		off, ok := g.alloc(n, false)
		if !ok {
			continue
		}
		if g.arenaOf(off) != g.arenaOf(off+n-1) {
			t.Fatalf("step %d: alloc(%d) = %d crosses an arena boundary", i, n, off)
		}
		live = append(live, alloc{off, n})
		if i%1000 == 0 {
			checkSegment(t, g)
		}
	}
	for _, a := range live {
		g.free(a.off, a.n)
	}
	checkSegment(t, g)
	if g.used != 0 || len(g.byStart) != len(g.arenas) {
		t.Errorf("after freeing everything: used %d, %d extents, want 0 and one per arena (%d)", g.used, len(g.byStart), len(g.arenas))
	}
}

// TestSegmentReusesExactFreedSize checks that a freed block is reused by an
// allocation of the same size that is not a bin boundary.
func TestSegmentReusesExactFreedSize(t *testing.T) {
	const n = 65600
	g := newSegment("s", 4*n, 4*n, true)
	var offs []int64
	for {
		off, ok := g.alloc(n, false)
		if !ok {
			break
		}
		offs = append(offs, off)
	}
	if len(offs) != 4 {
		t.Fatalf("alloc(%d) fitted %d times, want 4", n, len(offs))
	}
	g.free(offs[2], n)
	if off, ok := g.alloc(n, false); !ok || off != offs[2] {
		t.Errorf("alloc(%d) after freeing %d = %d, %t, want %d, true", n, offs[2], off, ok, offs[2])
	}
}
