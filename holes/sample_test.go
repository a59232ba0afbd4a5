package holes

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

func TestSample(t *testing.T) {
	st, err := mem.New(mem.Options{Capacity: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := testSettings()
	other := keys.Namespace{Name: "trtllm", ModelKey: "other"}
	var items []pool.PutItem
	for _, k := range s.AppendBlockKeys(nil, keys.Hash{1}) {
		items = append(items, pool.PutItem{Key: k, Value: []byte("v")})
	}
	items = append(items, pool.PutItem{Key: other.PageKey(keys.Shard{World: 1}, keys.DefaultLayerGroup, 32, keys.Hash{2}), Value: []byte("v")},
		pool.PutItem{Key: "trtllm/not-a-key", Value: []byte("v")})
	if err := st.Put(context.Background(), items, make([]pool.Code, len(items))); err != nil {
		t.Fatal(err)
	}
	got, err := Sample(context.Background(), st, s.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(PoolSample{Layouts: []keys.Layout{s.Layout}}, got); diff != "" {
		t.Errorf("Sample(model m) (-want +got):\n%s", diff)
	}
	got, err = Sample(context.Background(), st, keys.Namespace{Name: "trtllm", ModelKey: "x"})
	if err != nil || !cmp.Equal(got, PoolSample{OtherPrefixes: []string{"trtllm/m/", "trtllm/other/"}}) {
		t.Errorf("Sample(model x) = %+v, %v, want the other models' prefixes", got, err)
	}
	if _, err := Sample(context.Background(), noList{st}, s.Namespace); !errors.Is(err, ErrNoListing) {
		t.Errorf("Sample(a pool without List) error = %v, want ErrNoListing", err)
	}
}

// noList hides a store's List.
type noList struct{ pool.Store }
