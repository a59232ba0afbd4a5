package mem

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// The arena that values of a page or more open is populated ahead whole;
// one opened by small values, even many in one call, or a metadata-only
// segment's, is not (small values' pages are mapped behind their fill:
// TestSmallValuesMappedAheadOfTheirFill).
func TestArenaPopulatedForLargeValues(t *testing.T) {
	tests := []struct {
		name         string
		values, size int
		metadataOnly bool
		want         bool
	}{
		{"64 values of 128 bytes in a call", 64, 128, false, false},
		{"one value of a page less 64 bytes", 1, populateMin - Granule, false, false},
		{"one value of a page", 1, populateMin, false, true},
		{"32 values of 64 KiB", 32, 64 << 10, false, true},
		{"metadata only", 32, 64 << 10, true, false},
	}
	for _, tt := range tests {
		s, err := New(Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 8 << 20, Eviction: EvictManual, MetadataOnly: tt.metadataOnly})
		if err != nil {
			t.Fatal(err)
		}
		populated := 0
		s.segs[0].populate = func(mem []byte) {
			if len(mem) == 8<<20 {
				populated++
			}
		}
		items := make([]pool.PutItem, tt.values)
		for i := range items {
			items[i] = pool.PutItem{Key: fmt.Sprint("k", i), Value: make([]byte, tt.size)}
		}
		if err := s.Put(context.Background(), items, make([]pool.Code, len(items))); err != nil {
			t.Fatalf("%s: Put = %v", tt.name, err)
		}
		if got := populated > 0; got != tt.want {
			t.Errorf("%s: %d arenas populated whole, want populated %v", tt.name, populated, tt.want)
		}
		s.Close()
	}
}

// While a caller pins the arenas (ArenasPinned), an arena that values of a
// page or more open as they need it is not populated (the caller's
// registration maps its pages), but once values land in the last arena
// the next is opened ahead and populated; once every pinning caller has
// stopped, none is opened ahead and an arena is populated as values open
// it. Stopping twice counts once.
func TestArenasPinnedOpenTheNextAhead(t *testing.T) {
	s, err := New(Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 8 << 20, Eviction: EvictManual})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := s.segs[0]
	var populated []int // the arenas populated, by index
	g.populate = func([]byte) { populated = append(populated, len(g.arenas)-1) }
	put := func(round int) {
		t.Helper()
		items := make([]pool.PutItem, 128) // 8 MiB: one arena each round
		for i := range items {
			items[i] = pool.PutItem{Key: fmt.Sprint("r", round, "k", i), Value: make([]byte, 64<<10)}
		}
		if err := s.Put(context.Background(), items, make([]pool.Code, len(items))); err != nil {
			t.Fatalf("round %d: Put = %v", round, err)
		}
	}
	check := func(when string, arenas int, want ...int) {
		t.Helper()
		if len(g.arenas) != arenas || !slices.Equal(populated, want) {
			t.Errorf("%s: %d arenas, populated %v; want %d, populated %v", when, len(g.arenas), populated, arenas, want)
		}
	}
	first, second := s.ArenasPinned(), s.ArenasPinned()
	put(0)
	check("pinned, the first arena filled", 2, 1)
	first()
	first()
	put(1)
	check("pinned, the arena opened ahead filled", 3, 1, 2)
	second()
	put(2)
	check("unpinned, the arena opened ahead filled", 3, 1, 2)
	put(3)
	check("unpinned, an arena opened as values need it", 4, 1, 2, 3)
}
