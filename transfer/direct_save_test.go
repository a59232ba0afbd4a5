package transfer

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// TestDirectSaveMemPool saves GPU pages straight into pool/mem's arenas,
// across arenas the pool allocates after the saver registered the first
// ones, with a key already present, and reads every value back.
func TestDirectSaveMemPool(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		t.Run(string(mode), func(t *testing.T) {
			store := newSmallMemPool(t, 8<<10)
			f := newFixture(t, 16, newMapStore())
			rs := append(refs("s0", 0, 0, 9), refs("s1", 1, 2, 5)...)
			f.fillGPU(t, rs)
			putAll(t, store, rs[3:4]) // present before the save: kept
			s := openSaver(t, Options{Device: f.dev, Pool: store, Pools: f.pools, Direct: true, Batch: 4, Mode: mode, Stats: &Stats{}})
			res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil)
			if err != nil {
				t.Fatalf("direct Save(%s) error = %v", mode, err)
			}
			want := SaveResult{RequestID: "r", Pages: 14, Stored: 13, AlreadyExists: 1, Bytes: 8*2048 + 5*1024}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("direct Save(%s) result mismatch (-want +got):\n%s", mode, diff)
			}
			checkPoolValues(t, store, f, rs)
		})
	}
}

// checkPoolValues reads every page's value from the pool and compares it
// with the page's deterministic value.
func checkPoolValues(t *testing.T, store pool.Store, f *fixture, rs []PageRef) {
	t.Helper()
	for _, r := range rs {
		n := f.pools[r.LayerGroup].group.PageBytes()
		buf, got := make([]byte, n), make([]int64, 1)
		if err := store.Get(context.Background(), []string{r.Key}, [][]byte{buf}, got); err != nil {
			t.Fatalf("Get(%q) error = %v", r.Key, err)
		}
		if got[0] != n || !bytes.Equal(buf, pageValue(r.Key, n)) {
			t.Errorf("pool value of %q (%d bytes) differs from its GPU page", r.Key, got[0])
		}
	}
}

// cancellingStore cancels a context after its first Reserve.
type cancellingStore struct {
	*mem.Store
	cancel context.CancelFunc
}

func (c *cancellingStore) Reserve(ctx context.Context, items []pool.PutItem, dsts [][]byte, codes []pool.Code) (pool.Reservation, error) {
	defer c.cancel()
	return c.Store.Reserve(ctx, items, dsts, codes)
}

// TestDirectSaveCancelled cancels a direct save after the first of its
// two Reserve calls (one set: both batches are copied in one launch): the
// second call fails, the first call's reservation is aborted, nothing is
// published and nothing stays reserved (a later save stores every page).
func TestDirectSaveCancelled(t *testing.T) {
	store := newSmallMemPool(t, 0)
	f := newFixture(t, 8, newMapStore())
	rs := refs("a", 0, 0, 6)
	f.fillGPU(t, rs)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := NewSaver(Options{Device: f.dev, Pool: &cancellingStore{store, cancel}, Pools: f.pools, Direct: true, Batch: 4, Parallel: 1})
	if err != nil {
		t.Fatalf("NewSaver(direct) error = %v", err)
	}
	defer s.Close()
	res, err := s.Save(ctx, SaveJob{RequestID: "r", Pages: rs}, nil)
	if err == nil || res.Stored != 0 {
		t.Fatalf("Save cancelled after one Reserve call = %+v, %v, want nothing stored and an error", res, err)
	}
	st, err := store.Stat(context.Background())
	if err != nil || st.Keys != 0 || st.UsedBytes != 0 {
		t.Fatalf("after the cancelled save: %+v, %v, want no keys and no bytes used", st, err)
	}
	res, err = s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil)
	if err != nil || res.Stored != 6 || res.AlreadyExists != 0 {
		t.Errorf("Save again = %+v, %v, want all 6 stored", res, err)
	}
	checkPoolValues(t, store, f, rs)
}

func TestDirectSaveNeedsArenaWriter(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	o := f.options()
	o.Direct = true
	s, err := NewSaver(o)
	if err == nil {
		s.Close()
		t.Errorf("NewSaver(direct) on a pool that cannot reserve succeeded, want an error")
	}
}

// TestDirectLoaderAndSaverShareArenas opens a direct loader and a direct
// saver on one pool (the driver registers memory once): closing the
// loader must leave the saver's arenas registered.
func TestDirectLoaderAndSaverShareArenas(t *testing.T) {
	store := newSmallMemPool(t, 8<<10)
	f := newFixture(t, 8, newMapStore())
	rs := refs("sh", 0, 0, 6)
	f.fillGPU(t, rs)
	o := Options{Device: f.dev, Pool: store, Pools: f.pools, Direct: true, Batch: 4, Mode: cuda.ModeKernel}
	l, err := NewLoader(o)
	if err != nil {
		t.Fatalf("NewLoader(direct) error = %v", err)
	}
	s, err := NewSaver(o)
	if err != nil {
		t.Fatalf("NewSaver(direct) beside a direct loader error = %v", err)
	}
	defer s.Close()
	if l.arenas != s.lane.arenas {
		t.Errorf("a direct loader and saver of one pool and device have different arena maps")
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Loader.Close error = %v", err)
	}
	res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil)
	if err != nil || res.Stored != 6 {
		t.Fatalf("Save after the loader closed = %+v, %v, want 6 stored", res, err)
	}
	checkPoolValues(t, store, f, rs)
}
