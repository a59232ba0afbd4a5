package transfer

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// stagedLayout has pages of 32 KiB, so that a staged set of 64 pages (2
// MiB) is long enough for kernel mode's bounce copy, and groups whose
// pages take different numbers of kernel descriptors (two and four).
var stagedLayout = Layout{Groups: []LayerGroup{
	{RegionBytes: []int64{16 << 10, 16 << 10}},
	{RegionBytes: []int64{20 << 10, 7 << 10, 5 << 10}},
}}

// laggingCalls is a mapStore whose Get and Put calls for a batch that
// starts with a key of slow answer late, so that the later calls of the
// same set finish first.
type laggingCalls struct {
	*mapStore
	slow map[string]bool
}

func (s laggingCalls) lag(first string) {
	if s.slow[first] {
		time.Sleep(20 * time.Millisecond)
	}
}

func (s laggingCalls) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	s.lag(keys[0])
	return s.mapStore.Get(ctx, keys, bufs, n)
}

func (s laggingCalls) Put(ctx context.Context, items []pool.PutItem, codes []pool.Code) error {
	s.lag(items[0].Key)
	return s.mapStore.Put(ctx, items, codes)
}

// TestStagedLoadCallsOutOfOrder loads, in each copy mode, a request with
// a page missing and a whole one of both groups, in sets of 64 pages
// whose store calls of 3 pages finish first call last (the first set's,
// with the failed request, and the second's, all whole): each call's
// pages (in kernel mode, its share of the set's descriptors) must land
// at their own places, the whole request's pages landing and the failed
// one's none.
func TestStagedLoadCallsOutOfOrder(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		t.Run(string(mode), func(t *testing.T) {
			f := newLayoutFixture(t, stagedLayout, 160, newMapStore())
			broken, whole := refs("b", 0, 100, 40), append(refs("w0", 0, 0, 100), refs("w1", 1, 0, 60)...)
			// Items run broken, then whole: the second set starts at whole[24].
			store := laggingCalls{mapStore: f.store, slow: map[string]bool{broken[0].Key: true, whole[24].Key: true}}
			f.seed(t, whole)
			f.seed(t, append(broken[:9:9], broken[10:]...))
			l := openLoader(t, Options{Device: f.dev, Pool: store, Pools: f.pools, Batch: 3, Parallel: 4, Mode: mode})
			f.checkLoadOfBrokenAndWhole(t, l, broken, whole)
		})
	}
}

// TestStagedSaveCallsOutOfOrder saves, in each copy mode, two requests
// of both groups in sets of 64 pages whose store calls of 3 pages finish
// first call last, one put failing: each call must put its own pages'
// values.
func TestStagedSaveCallsOutOfOrder(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		t.Run(string(mode), func(t *testing.T) {
			f := newLayoutFixture(t, stagedLayout, 160, newMapStore())
			r0, r1 := refs("s0", 0, 0, 100), refs("s1", 1, 0, 60)
			store := laggingCalls{mapStore: f.store, slow: map[string]bool{r0[0].Key: true, r0[64].Key: true}}
			f.store.putFail[r1[7].Key] = pool.NoAvailableHandle
			f.fillGPU(t, append(r0, r1...))
			s := openSaver(t, Options{Device: f.dev, Pool: store, Pools: f.pools, Batch: 3, Parallel: 4, Mode: mode})
			res, err := s.SaveAll(context.Background(), []SaveJob{{RequestID: "0", Pages: r0}, {RequestID: "1", Pages: r1}}, nil)
			if err != nil {
				t.Fatalf("SaveAll(%s) error = %v", mode, err)
			}
			if res[0].Stored != len(r0) || res[1].Stored != len(r1)-1 || !cmp.Equal(res[1].FailedKeys, []string{r1[7].Key}) {
				t.Fatalf("SaveAll(%s) = %+v, want all stored but %s", mode, res, r1[7].Key)
			}
			checkPoolValues(t, store, f, append(r0, append(r1[:7:7], r1[8:]...)...))
		})
	}
}
