package transfer

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// laggingStore is pool/mem's Store whose store calls for a batch that
// starts with the key slow answer late, so that the later calls of the
// same set finish first.
type laggingStore struct {
	*mem.Store
	slow string
}

func (s laggingStore) lag(first string) {
	if first == s.slow {
		time.Sleep(20 * time.Millisecond)
	}
}

func (s laggingStore) ViewBatch(keys []string, views [][]byte, codes []pool.Code) func() {
	s.lag(keys[0])
	return s.Store.ViewBatch(keys, views, codes)
}

func (s laggingStore) Reserve(ctx context.Context, items []pool.PutItem, dsts [][]byte, codes []pool.Code) (pool.Reservation, error) {
	s.lag(items[0].Key)
	return s.Store.Reserve(ctx, items, dsts, codes)
}

// TestDirectLoadCallsOutOfOrder loads, in each copy mode, two requests
// in one set of many store calls whose first call answers last, one
// request with a page missing: each call's copies (in kernel mode, its
// share of the set's descriptors) must land at its own place whatever
// order the calls finish in, the whole request's pages landing and the
// failed one's none.
func TestDirectLoadCallsOutOfOrder(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		t.Run(string(mode), func(t *testing.T) {
			store := laggingStore{Store: newSmallMemPool(t, 0)}
			f := newFixture(t, 64, newMapStore())
			whole, broken := append(refs("w0", 0, 0, 20), refs("w1", 1, 0, 12)...), refs("b", 0, 20, 24)
			store.slow = broken[0].Key
			putAll(t, store, whole)
			putAll(t, store, append(broken[:9:9], broken[10:]...))
			f.zeroGPU(t)
			l := openLoader(t, Options{Device: f.dev, Pool: store, Pools: f.pools, Direct: true, Batch: 3, Parallel: 4, Mode: mode})
			f.checkLoadOfBrokenAndWhole(t, l, broken, whole)
		})
	}
}

// TestDirectSaveCallsOutOfOrder saves, in each copy mode, one set of
// many store calls whose first call answers last, a page already in the
// pool: each call's gathers must land in its own reservations.
func TestDirectSaveCallsOutOfOrder(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		t.Run(string(mode), func(t *testing.T) {
			store := laggingStore{Store: newSmallMemPool(t, 0)}
			f := newFixture(t, 64, newMapStore())
			rs := append(refs("s0", 0, 0, 30), refs("s1", 1, 0, 14)...)
			store.slow = rs[0].Key
			f.fillGPU(t, rs)
			putAll(t, store, rs[7:8])
			s := openSaver(t, Options{Device: f.dev, Pool: store, Pools: f.pools, Direct: true, Batch: 3, Parallel: 4, Mode: mode})
			res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil)
			if err != nil || res.Stored != len(rs)-1 || res.AlreadyExists != 1 {
				t.Fatalf("direct Save(%s) = %+v, %v, want %d stored, 1 already there", mode, res, err, len(rs)-1)
			}
			checkPoolValues(t, store, f, rs)
		})
	}
}

// checkLoadOfBrokenAndWhole loads broken, whose page 9 is missing from
// the pool, and whole with l, and checks that broken fails with that
// page missing and none of its pages copied, and that whole lands.
func (f *fixture) checkLoadOfBrokenAndWhole(t *testing.T, l *Loader, broken, whole []PageRef) {
	t.Helper()
	res, err := l.Load(context.Background(), []LoadJob{{RequestID: "b", Pages: broken}, {RequestID: "w", Pages: whole}})
	if err != nil {
		t.Fatalf("Load error = %v", err)
	}
	if want := []string{broken[9].Key}; !cmp.Equal(res[0].Missing, want) || res[0].Landed != 0 || !res[1].OK() {
		t.Fatalf("Load = %+v, want %v missing in the first, the second whole", res, want)
	}
	f.checkLanded(t, whole)
	for _, r := range broken {
		if page := f.gpuPage(t, r.LayerGroup, r.Page); !allZero(page) {
			t.Fatalf("page %d of the failed request was copied", r.Page)
		}
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
