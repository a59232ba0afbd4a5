package mooncake

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/pool/pooltest"
)

// newMem opens an embedded pool holding keys, closed when the test ends.
func newMem(t *testing.T, keys map[string][]byte) *mem.Store {
	t.Helper()
	m, err := mem.New(mem.Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10, Eviction: mem.EvictManual})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	var items []pool.PutItem
	for k, v := range keys {
		items = append(items, pool.PutItem{Key: k, Value: v})
	}
	results := make([]pool.Code, len(items))
	if err := m.Put(context.Background(), items, results); err != nil {
		t.Fatal(err)
	}
	for i, c := range results {
		if c != pool.OK {
			t.Fatalf("mem Put(%q) = %v, want OK", items[i].Key, c)
		}
	}
	return m
}

func TestConformance(t *testing.T) {
	pooltest.RunReadOnly(t, func(t *testing.T, keys map[string][]byte) pool.Store {
		srv := httptest.NewServer(NewMasterHandler(newMem(t, keys)))
		t.Cleanup(srv.Close)
		s, err := New(context.Background(), srv.Listener.Addr().String(), fastOptions)
		if err != nil {
			t.Fatalf("New(%s) = %v", srv.URL, err)
		}
		return s
	})
}

func segStat(t *testing.T, m *mem.Store, i int) pool.Segment {
	t.Helper()
	st, err := m.Stat(context.Background())
	if err != nil || len(st.Segments) <= i {
		t.Fatalf("mem Stat() = %+v, %v", st, err)
	}
	return st.Segments[i]
}

func segUsed(t *testing.T, m *mem.Store, i int) string {
	return jsonOf(t, segStat(t, m, i).UsedBytes)
}

func segPct(t *testing.T, m *mem.Store, i int) string {
	s := segStat(t, m, i)
	return jsonOf(t, sciFloat(float64(s.UsedBytes)/float64(s.CapacityBytes)*100))
}

func TestStatOverMem(t *testing.T) {
	m := newMem(t, map[string][]byte{"a": []byte("hello"), "b": make([]byte, 100)})
	m.Put(context.Background(), []pool.PutItem{{Key: "a", Value: []byte("again")}}, make([]pool.Code, 1))
	srv := httptest.NewServer(NewMasterHandler(m))
	defer srv.Close()
	s, err := New(context.Background(), srv.Listener.Addr().String(), fastOptions)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Stat(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Stat(context.Background())
	if err != nil {
		t.Fatalf("Stat() = %v", err)
	}
	want.Backend, want.Address, want.ReadOnly = "mooncake", srv.Listener.Addr().String(), true
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stat() through the handler (-mem +client):\n%s", diff)
	}
	if got.PutsExisting != 1 || got.Keys != 2 {
		t.Errorf("Stat() = %d keys, %d puts of existing keys, want 2 and 1", got.Keys, got.PutsExisting)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
