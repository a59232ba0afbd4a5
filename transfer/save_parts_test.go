package transfer

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// TestSaveInParts saves pages larger than PartBytes to a pool that
// reserves places (pool.Reserver): each page's parts are copied into its
// place on the crew, a key already present is left as it was, and every
// value stored equals its GPU page.
func TestSaveInParts(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		t.Run(string(mode), func(t *testing.T) {
			store := newMemPool(t, 64<<20)
			f := newLayoutFixture(t, partsLayout, 16, newMapStore())
			rs := append(refs("g0", 0, 0, 8), refs("g1", 1, 8, 8)...)
			f.fillGPU(t, rs)
			old := []byte("older value")
			codes := make([]pool.Code, 1)
			if err := store.Put(context.Background(), []pool.PutItem{{Key: "g0-3", Value: old}}, codes); err != nil || codes[0] != pool.OK {
				t.Fatalf("seeding Put = %v, %v", codes, err)
			}
			o := f.options()
			o.Pool, o.Parallel, o.Mode = store, 4, mode
			s := openSaver(t, o)
			if g := s.Geometry(); g.PageParts != 3 || g.SetPages != int(SetBytes/600007) {
				t.Errorf("Geometry() = %+v, want pages in 3 parts, sets of %d pages", g, SetBytes/600007)
			}
			res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil)
			if err != nil {
				t.Fatalf("Save error = %v", err)
			}
			want := SaveResult{RequestID: "r", Pages: 16, Stored: 15, AlreadyExists: 1, Bytes: 7*600007 + 8*130000}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("Save result mismatch (-want +got):\n%s", diff)
			}
			for _, r := range rs {
				want := pageValue(r.Key, f.pools[r.LayerGroup].group.PageBytes())
				if r.Key == "g0-3" {
					want = old
				}
				got, n := []byte(make([]byte, 600007)), make([]int64, 1)
				if err := store.Get(context.Background(), []string{r.Key}, [][]byte{got}, n); err != nil || n[0] != int64(len(want)) || !bytes.Equal(got[:n[0]], want) {
					t.Errorf("pool value of %q (%d bytes, %v) differs from what was saved", r.Key, n[0], err)
				}
			}
		})
	}
}
