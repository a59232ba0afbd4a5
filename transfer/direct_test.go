package transfer

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// TestDirectLoadMemPool loads from pool/mem's arenas in place, including
// arenas the pool allocates after the loader registered the first ones.
func TestDirectLoadMemPool(t *testing.T) {
	store := newSmallMemPool(t, 8<<10)
	dev := testDevice(t)
	pools, err := NewPagePools(dev, testLayout, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer ClosePagePools(pools)
	f := &fixture{dev: dev, pools: pools}
	first, later := refs("d", 0, 0, 6), refs("d", 0, 6, 10)
	putAll(t, store, first)
	for _, mode := range cuda.CopyModes {
		l, err := NewLoader(Options{Device: dev, Pool: store, Pools: pools, Direct: true, Batch: 5, Mode: mode})
		if errors.Is(err, cuda.ErrUnsupported) {
			continue
		}
		if err != nil {
			t.Fatalf("NewLoader(direct, %s) error = %v", mode, err)
		}
		putAll(t, store, later) // new arenas, registered on first use
		all := append(append([]PageRef(nil), first...), later...)
		results, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: all}})
		if err != nil || !results[0].OK() {
			t.Fatalf("direct Load(%s) = %+v, %v, want every page", mode, results, err)
		}
		f.checkLanded(t, all)
		if err := l.Close(); err != nil {
			t.Errorf("Close error = %v", err)
		}
	}
}

// newSmallMemPool is a 1 MiB embedded pool of one segment, with arenas of
// arenaBytes (0: the default), closed when the test ends.
func newSmallMemPool(t *testing.T, arenaBytes int64) *mem.Store {
	t.Helper()
	store, err := mem.New(mem.Options{Capacity: 1 << 20, Segments: 1, ArenaSize: arenaBytes, Eviction: mem.EvictManual})
	if err != nil {
		t.Fatalf("mem.New error = %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

func putAll(t *testing.T, s pool.Store, rs []PageRef) {
	t.Helper()
	items := make([]pool.PutItem, len(rs))
	for i, r := range rs {
		items[i] = pool.PutItem{Key: r.Key, Value: pageValue(r.Key, testLayout.Groups[r.LayerGroup].PageBytes())}
	}
	codes := make([]pool.Code, len(items))
	if err := s.Put(context.Background(), items, codes); err != nil {
		t.Fatalf("Put error = %v", err)
	}
	for i, c := range codes {
		if c != pool.OK && c != pool.ObjectAlreadyExists {
			t.Fatalf("Put(%q) = %s", items[i].Key, c)
		}
	}
}

func TestDirectNeedsArenaStore(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	o := f.options()
	o.Direct = true
	o.Pool = plainStore{f.store}
	if l, err := NewLoader(o); err == nil {
		l.Close()
		t.Errorf("NewLoader(direct) on a pool without arenas succeeded, want an error")
	}
}

// plainStore hides mapStore's arena methods.
type plainStore struct{ pool.Store }

// TestDirectLoadEndsItsViews checks that a direct load ends every view
// (they are ended off the issuing goroutine) before it returns: with
// leases of a nanosecond, a plain Remove right after finds no value held.
func TestDirectLoadEndsItsViews(t *testing.T) {
	store, err := mem.New(mem.Options{Capacity: 1 << 20, Segments: 1, Eviction: mem.EvictManual, LeaseTTL: time.Nanosecond})
	if err != nil {
		t.Fatalf("mem.New error = %v", err)
	}
	defer store.Close()
	dev := testDevice(t)
	pools, err := NewPagePools(dev, testLayout, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer ClosePagePools(pools)
	rs := refs("v", 0, 0, 64)
	putAll(t, store, rs)
	l, err := NewLoader(Options{Device: dev, Pool: store, Pools: pools, Direct: true, Batch: 4, Mode: cuda.ModeKernel})
	if err != nil {
		t.Fatalf("NewLoader(direct) error = %v", err)
	}
	defer l.Close()
	for round := range 3 {
		if results, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: rs}}); err != nil || !results[0].OK() {
			t.Fatalf("round %d: direct Load = %+v, %v, want every page", round, results, err)
		}
	}
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.Key
	}
	codes := make([]pool.Code, len(keys))
	if err := store.Remove(context.Background(), keys, false, codes); err != nil {
		t.Fatal(err)
	}
	for i, c := range codes {
		if c != pool.OK {
			t.Fatalf("Remove(%q) after the loads = %s, want OK (no view left)", keys[i], c)
		}
	}
}

// TestDirectLoadEndsItsViewsAcrossSets is TestDirectLoadEndsItsViews for
// a call of six sets, whose last sets' views end on the crew once the
// call drained (pipeline.end), the earlier ones' on the finisher.
func TestDirectLoadEndsItsViewsAcrossSets(t *testing.T) {
	const pages, pageBytes = 96, 1 << 20 // six sets of 16 pages with batches of 4
	store, err := mem.New(mem.Options{Capacity: 112 << 20, Segments: 1, Eviction: mem.EvictManual, LeaseTTL: time.Nanosecond})
	if err != nil {
		t.Fatalf("mem.New error = %v", err)
	}
	defer store.Close()
	dev := testDevice(t)
	layout, err := UniformLayout(1, 2, pageBytes)
	if err != nil {
		t.Fatal(err)
	}
	pools, err := NewPagePools(dev, layout, pages)
	if err != nil {
		t.Fatal(err)
	}
	defer ClosePagePools(pools)
	rs := refs("s", 0, 0, pages)
	keys := make([]string, len(rs))
	items := make([]pool.PutItem, len(rs))
	for i, r := range rs {
		keys[i], items[i] = r.Key, pool.PutItem{Key: r.Key, Value: pageValue(r.Key, pageBytes)}
	}
	codes := make([]pool.Code, len(keys))
	if err := store.Put(context.Background(), items, codes); err != nil {
		t.Fatal(err)
	}
	l, err := NewLoader(Options{Device: dev, Pool: store, Pools: pools, Direct: true, Batch: 4, Mode: cuda.ModeKernel})
	if err != nil {
		t.Fatalf("NewLoader(direct) error = %v", err)
	}
	defer l.Close()
	if sets := pages / l.Geometry().SetPages; sets <= l.Geometry().Buffers {
		t.Fatalf("a load of %d pages in sets of %d: want more sets than the %d in flight", pages, l.Geometry().SetPages, l.Geometry().Buffers)
	}
	if results, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: rs}}); err != nil || !results[0].OK() {
		t.Fatalf("direct Load = %+v, %v, want every page", results, err)
	}
	if err := store.Remove(context.Background(), keys, false, codes); err != nil {
		t.Fatal(err)
	}
	for i, c := range codes {
		if c != pool.OK {
			t.Fatalf("Remove(%q) after the load = %s, want OK (no view left)", keys[i], c)
		}
	}
}
