package mem

import (
	"context"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kvctl/kvctl/pool"
)

// TestMetadataOnlyAccountingMatchesBytes replays one random workload of
// puts, removes and eviction steps into a byte store whose arenas are its
// segments and a metadata-only store and requires identical results and
// statistics.
func TestMetadataOnlyAccountingMatchesBytes(t *testing.T) {
	opts := Options{Capacity: 2 << 20, Segments: 3, ArenaSize: 1 << 20}
	bytesStore, clockB := newTestStore(t, opts)
	opts.MetadataOnly = true
	metaStore, clockM := newTestStore(t, opts)
	rng := rand.New(rand.NewPCG(7, 7))
	ctx := context.Background()
	for step := range 3000 {
		key := keysN("k", 400)[rng.IntN(400)]
		switch rng.IntN(10) {
		case 0:
			rb, rm := removeKeys(t, bytesStore, true, key), removeKeys(t, metaStore, true, key)
			if rb[0] != rm[0] {
				t.Fatalf("step %d: Remove(%q) = %v in bytes, %v in metadata", step, key, rb[0], rm[0])
			}
		case 1:
			sb, sm := bytesStore.RunEvictionStep(), metaStore.RunEvictionStep()
			if diff := cmp.Diff(sb, sm); diff != "" {
				t.Fatalf("step %d: RunEvictionStep() differs (-bytes +metadata):\n%s", step, diff)
			}
		default:
			n := 1 + rng.IntN(40<<10)
			rb := put(t, bytesStore, pool.PutItem{Key: key, Value: make([]byte, n)})
			rm := put(t, metaStore, pool.PutItem{Key: key, Size: int64(n)})
			if rb[0] != rm[0] {
				t.Fatalf("step %d: Put(%q, %d) = %v in bytes, %v in metadata", step, key, n, rb[0], rm[0])
			}
		}
		clockB.Advance(1e6)
		clockM.Advance(1e6)
	}
	sb, _ := bytesStore.Stat(ctx)
	sm, _ := metaStore.Stat(ctx)
	if diff := cmp.Diff(sb, sm, cmpopts.IgnoreFields(pool.Stat{}, "Address")); diff != "" {
		t.Errorf("Stat() differs (-bytes +metadata):\n%s", diff)
	}
	if sb.EvictedKeys == 0 || sb.AllocationFailure == 0 {
		t.Errorf("workload evicted %d keys with %d allocation failures; want both non-zero to exercise them", sb.EvictedKeys, sb.AllocationFailure)
	}
	checkInvariants(t, bytesStore)
	checkInvariants(t, metaStore)
}

func TestMetadataOnlyReads(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, MetadataOnly: true})
	mustPut(t, s, pool.PutItem{Key: "sized", Size: 1000}, pool.PutItem{Key: "valued", Value: []byte("dropped")})
	_, n := getKeys(t, s, 2000, "sized", "valued", "missing")
	if want := []int64{int64(pool.InvalidParams), int64(pool.InvalidParams), int64(pool.ObjectNotFound)}; !cmp.Equal(n, want) {
		t.Errorf("Get(sized, valued, missing) in metadata-only mode = %v, want %v", n, want)
	}
	clock.Advance(DefaultLeaseTTL / 2)
	if got := removeKeys(t, s, false, "sized")[0]; got != pool.ObjectHasLease {
		t.Errorf("Remove(sized) after a metadata-only Get = %v, want OBJECT_HAS_LEASE (the lookup leases)", got)
	}
	sizes := make([]int64, 2)
	if err := s.Sizes(context.Background(), []string{"sized", "valued"}, sizes); err != nil || !cmp.Equal(sizes, []int64{1000, 7}) {
		t.Errorf("Sizes(sized, valued) = %v, %v, want [1000 7], nil", sizes, err)
	}
	if st := stat(t, s); st.UsedBytes != 1000+7 {
		t.Errorf("Stat().UsedBytes = %d, want %d (the sizes, not the allocations)", st.UsedBytes, 1000+7)
	}
	if a := s.Arenas(); len(a) != 0 {
		t.Errorf("Arenas() in metadata-only mode = %d arenas, want none", len(a))
	}
}

func TestArenasAreAllocatedLazily(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 30, Segments: 2, ArenaSize: 1 << 20})
	if a := s.Arenas(); len(a) != 0 {
		t.Fatalf("Arenas() of an empty store = %d, want 0", len(a))
	}
	mustPut(t, s, pool.PutItem{Key: "a", Value: []byte("x")}) // each call takes the next segment
	mustPut(t, s, pool.PutItem{Key: "b", Value: []byte("y")})
	arenas := s.Arenas()
	if len(arenas) != 2 || len(arenas[0]) != 1<<20 {
		t.Fatalf("Arenas() after 2 puts on 2 segments = %d arenas, want 2 of 1 MiB", len(arenas))
	}
	b, release, _ := s.View("a")
	defer release()
	if !inside(b, arenas) {
		t.Errorf("View(a) bytes are not inside Arenas()")
	}
	p, _ := newTestStore(t, Options{Capacity: 8 << 20, Segments: 2, ArenaSize: 1 << 20, Preallocate: true})
	if got := len(p.Arenas()); got != 8 {
		t.Errorf("Arenas() with preallocate = %d, want 8", got)
	}
}

// inside reports whether b lies within one of arenas.
func inside(b []byte, arenas [][]byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for _, a := range arenas {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
		if p >= lo && p+uintptr(len(b)) <= lo+uintptr(len(a)) {
			return true
		}
	}
	return false
}

// TestObjectSize guards the per-value cost of the index: the pool holds an
// object per value, millions of them with small pages. It is the whole
// entry of its key in the index, which allocates nothing else per key.
func TestObjectSize(t *testing.T) {
	if got, want := unsafe.Sizeof(object{}), uintptr(96); got > want {
		t.Errorf("unsafe.Sizeof(object{}) = %d, want at most %d", got, want)
	}
}
