package mem

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// placed is where a key's object lies.
type placed struct {
	Seg      int
	Off, End int64
}

func placementOf(s *Store, keys ...string) []placed {
	var out []placed
	for _, k := range keys {
		o := s.lookup(k)
		out = append(out, placed{int(o.seg), o.off, o.off + o.allocSize(s.qbits)})
	}
	return out
}

// checkAdjacent fails unless the keys' objects lie back to back, in order,
// in one arena of one segment.
func checkAdjacent(t *testing.T, s *Store, keys ...string) {
	t.Helper()
	ps := placementOf(s, keys...)
	g := s.segs[ps[0].Seg]
	for i := 1; i < len(ps); i++ {
		if ps[i].Seg != ps[0].Seg || ps[i].Off != ps[i-1].End {
			t.Fatalf("placement of %v = %+v, want back to back in one segment", keys, ps)
		}
	}
	if g.arenaOf(ps[0].Off) != g.arenaOf(ps[len(ps)-1].End-1) {
		t.Errorf("placement of %v = %+v crosses arenas of %d bytes", keys, ps, g.arenaSize)
	}
}

// checkCoalesced fails unless every segment is empty and each opened arena
// is one free extent again.
func checkCoalesced(t *testing.T, s *Store) {
	t.Helper()
	for _, g := range s.segs {
		g.mu.Lock()
		checkSegment(t, g)
		if g.used != 0 || len(g.byStart) != len(g.arenas) {
			t.Errorf("%s: used %d with %d free extents, want 0 used and one extent per opened arena (%d)", g.name, g.used, len(g.byStart), len(g.arenas))
		}
		for i, a := range g.arenas {
			if e := g.byStart[a.start]; e == nil || e.off+e.size != a.end {
				t.Errorf("%s: arena %d is not one free extent", g.name, i)
			}
		}
		g.mu.Unlock()
	}
}

func TestCallPlacedBackToBack(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 4 << 20, Segments: 2, ArenaSize: 1 << 20})
	keys := []string{"a", "b", "c", "d", "e"}
	sizes := []int64{100, 64, 4096, 1, 65}
	items := []pool.PutItem{}
	for i, k := range keys {
		items = append(items, inPlace(k, sizes[i], pool.PutOptions{}))
	}
	items = append(items[:2], append([]pool.PutItem{inPlace("", 10, pool.PutOptions{}), inPlace("a", 8, pool.PutOptions{})}, items[2:]...)...)
	r, _, codes := reserve(t, s, items...)
	want := []pool.Code{pool.OK, pool.OK, pool.InvalidParams, pool.ObjectAlreadyExists, pool.OK, pool.OK, pool.OK}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Fatalf("Reserve codes mismatch (-want +got):\n%s", diff)
	}
	checkAdjacent(t, s, keys...)
	r.Commit()
	mustPut(t, s, sized("f", 10, pool.PutOptions{}), sized("g", 300, pool.PutOptions{}))
	checkAdjacent(t, s, "f", "g")
	if got := placementOf(s, "a", "f"); got[0].Seg == got[1].Seg {
		t.Errorf("segments of two calls = %d, %d, want round-robin", got[0].Seg, got[1].Seg)
	}
	removeKeys(t, s, true, append(keys, "f", "g")...)
	checkCoalesced(t, s)
}

// TestCallLargerThanArena checks that a call larger than an arena is cut
// into runs of at most an arena, each back to back.
func TestCallLargerThanArena(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10})
	keys := keysN("k", 20)
	var items []pool.PutItem
	for _, k := range keys {
		items = append(items, sized(k, 4<<10, pool.PutOptions{}))
	}
	mustPut(t, s, items...)
	checkAdjacent(t, s, keys[:16]...)
	checkAdjacent(t, s, keys[16:]...)
	if st := stat(t, s); st.UsedBytes != 20*4<<10 {
		t.Errorf("UsedBytes = %d, want %d", st.UsedBytes, 20*4<<10)
	}
	checkInvariants(t, s)
	removeKeys(t, s, true, keys...)
	checkCoalesced(t, s)
}

// TestCallFallsBackToEachValue fills two one-arena segments so that a
// call fits neither as one extent: its values are placed one by one, as
// many as there is room for.
func TestCallFallsBackToEachValue(t *testing.T) {
	const page = 4 << 10
	s, _ := newTestStore(t, Options{Capacity: 128 << 10, Segments: 2, ArenaSize: 64 << 10})
	mustPut(t, s, sized("fill0", 40<<10, pool.PutOptions{}))
	mustPut(t, s, sized("fill1", 40<<10, pool.PutOptions{}))
	var items []pool.PutItem
	for _, k := range keysN("p", 8) { // 32 KiB: 24 KiB are left in each segment
		items = append(items, sized(k, page, pool.PutOptions{}))
	}
	mustPut(t, s, items...)
	items = items[:0]
	for _, k := range keysN("q", 5) { // 20 KiB: 16 KiB are left
		items = append(items, sized(k, page, pool.PutOptions{}))
	}
	want := []pool.Code{pool.OK, pool.OK, pool.OK, pool.OK, pool.NoAvailableHandle}
	if diff := cmp.Diff(want, put(t, s, items...)); diff != "" {
		t.Errorf("Put codes when 16 KiB are left mismatch (-want +got):\n%s", diff)
	}
	if st := stat(t, s); st.UsedBytes != 128<<10 || st.AllocationFailure != 1 {
		t.Errorf("Stat() = %d bytes used, %d allocation failures, want %d, 1", st.UsedBytes, st.AllocationFailure, 128<<10)
	}
	if present(t, s, "q0004")[0] != 0 {
		t.Errorf("Exist(q0004) after NO_AVAILABLE_HANDLE = 1, want 0")
	}
	checkInvariants(t, s)
	all := append(append([]string{"fill0", "fill1"}, keysN("p", 8)...), keysN("q", 4)...)
	if got := removeKeys(t, s, true, all...); !cmp.Equal(got, make([]pool.Code, len(all))) {
		t.Errorf("Remove(everything) = %v, want all OK", got)
	}
	checkCoalesced(t, s)
}

// TestAbortFreesRun checks that aborting a reservation returns its run's
// space, coalesced, and that the keys are free again.
func TestAbortFreesRun(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, ArenaSize: 256 << 10})
	var items []pool.PutItem
	for _, k := range keysN("r", 32) {
		items = append(items, inPlace(k, 1000, pool.PutOptions{}))
	}
	r, _, _ := reserve(t, s, items...)
	r.Abort()
	checkCoalesced(t, s)
	r, _, codes := reserve(t, s, items...)
	if codes[0] != pool.OK || codes[31] != pool.OK {
		t.Errorf("Reserve after Abort = %v, want OK", codes)
	}
	r.Commit()
	checkAdjacent(t, s, keysN("r", 32)...)
	removeKeys(t, s, true, keysN("r", 32)...)
	checkCoalesced(t, s)
}
