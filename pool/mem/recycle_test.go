package mem

import (
	"context"
	"runtime"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// TestRecyclersSurviveCollections checks that the store calls find their
// scratch lists and holds kept after collections, as kvctl bench's timed
// transfers do after the collection made before each: a put and a get
// allocate nothing, a view only its release func.
func TestRecyclersSurviveCollections(t *testing.T) {
	s, err := New(Options{Capacity: 16 << 20, Preallocate: true, Eviction: EvictManual})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keys := benchKeys(64)
	items := make([]pool.PutItem, len(keys))
	src := make([]byte, len(keys)*pageSize)
	bufs := make([][]byte, len(keys))
	for i, k := range keys {
		items[i] = pool.PutItem{Key: k, Value: src[i*pageSize : (i+1)*pageSize]}
		bufs[i] = make([]byte, pageSize)
	}
	codes, n := make([]pool.Code, len(keys)), make([]int64, len(keys))
	views := make([][]byte, len(keys))
	ctx := context.Background()
	put := func() error { return s.Put(ctx, items, codes) }
	remove := func() { s.Remove(ctx, keys, true, codes) }
	calls := []struct {
		name         string
		allocs       uint64
		before, call func() error
		after        func()
	}{
		{"Put", 0, nil, put, remove},
		{"Get", 0, put, func() error { return s.Get(ctx, keys, bufs, n) }, remove},
		{"ViewBatch", 1, put, func() error { s.ViewBatch(keys, views, codes)(); return nil }, remove},
	}
	for _, c := range calls {
		if got := allocsAfterCollections(t, c.before, c.call, c.after); got != c.allocs {
			t.Errorf("%s after two collections made %d allocations, want %d", c.name, got, c.allocs)
		}
	}
}

// allocsAfterCollections runs before, two collections and call, then
// after, ten times (and once first, so that what call recycles is made),
// and returns the allocations of one call, the average rounded down: an
// allocation of the runtime's own during a round does not count, one of
// call's in every round does.
func allocsAfterCollections(t *testing.T, before, call func() error, after func()) uint64 {
	t.Helper()
	const rounds = 10
	var total uint64
	for r := range rounds + 1 {
		if before != nil {
			if err := before(); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		runtime.GC() // a sync.Pool keeps its values through one collection, not two
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		err := call()
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		after()
		if r > 0 {
			total += m1.Mallocs - m0.Mallocs
		}
	}
	return total / rounds
}
