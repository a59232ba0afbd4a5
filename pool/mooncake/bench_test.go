package mooncake

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// BenchmarkExistHTTP probes 4096 kvctl-shaped keys per operation (half
// present) through /batch_query_keys against NewMasterHandler over a
// metadata-only mem pool on 127.0.0.1, with the default chunk (256) and
// parallelism (4); keys/s covers both client and server on this machine.
func BenchmarkExistHTTP(b *testing.B) {
	m, err := mem.New(mem.Options{Capacity: 64 << 20, MetadataOnly: true, Eviction: mem.EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	keys := make([]string, 4096)
	var items []pool.PutItem
	for i := range keys {
		keys[i] = fmt.Sprintf("trtllm/Qwen3-8B/w1r0/lg0/t32b1048576/%032x", i)
		if i%2 == 0 {
			items = append(items, pool.PutItem{Key: keys[i], Size: 1})
		}
	}
	if err := m.Put(context.Background(), items, make([]pool.Code, len(items))); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(NewMasterHandler(m))
	defer srv.Close()
	s, err := New(context.Background(), srv.Listener.Addr().String(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	status := make([]int, len(keys))
	for b.Loop() {
		if err := s.Exist(context.Background(), keys, status); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(keys))/b.Elapsed().Seconds(), "keys/s")
}
