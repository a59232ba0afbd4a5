package connector

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
)

// keepingStore keeps the key strings of its puts, as a backend may unless
// it states pool.KeyCopier; seen is each key as it read at put time.
type keepingStore struct {
	pool.Store
	kept, seen []string
}

func (k *keepingStore) Put(ctx context.Context, it []pool.PutItem, r []pool.Code) error {
	for _, item := range it {
		k.kept = append(k.kept, item.Key)
		k.seen = append(k.seen, strings.Clone(item.Key))
	}
	return k.Store.Put(ctx, it, r)
}

// copyingStore states pool.KeyCopier: the worker may borrow its put keys.
type copyingStore struct{ *keepingStore }

func (copyingStore) CopiesPutKeys() {}

// Saves in two calls: every put sees the right keys, and a store that may
// keep them finds them intact after the worker's next call.
func TestSavePutKeys(t *testing.T) {
	c := chainOf(t, 2*testT, 0)
	var want []string
	for b := range 2 {
		for _, lg := range testLayout.LayerGroups {
			want = append(want, testNS.PageKey(keys.Shard{World: 1}, lg, testT, c.Hash(b)))
		}
	}
	tests := []struct {
		name       string
		copies     bool
		wantIntact bool
	}{
		{"a store that may keep keys gets its own", false, true},
		{"a store that copies keys gets borrowed ones", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ks := &keepingStore{Store: newMem(t)}
			var store pool.Store = ks
			if tt.copies {
				store = copyingStore{ks}
			}
			pages := newFakePages(testLayout, 2)
			pages.fill(0, c.Hash(0))
			pages.fill(1, c.Hash(1))
			w, _ := newTestWorker(t, store, pages, nil)
			for b := range 2 {
				m := &Meta{Saves: []Transfer{{"a", b, c.Hash(b), int32(b)}}}
				if err := w.WaitForSave(context.Background(), m); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(want, ks.seen); diff != "" {
				t.Errorf("put keys at put time (-want +got):\n%s", diff)
			}
			if intact := cmp.Equal(want, ks.kept); tt.wantIntact && !intact {
				t.Errorf("put keys after the next call = %q, want %q", ks.kept, want)
			}
		})
	}
}
