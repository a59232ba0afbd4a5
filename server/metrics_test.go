package server

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mooncake"
)

func TestMetrics(t *testing.T) {
	ts := startServer(t, nil)
	for range 2 {
		ts.complete(t, `{"prompt":"`+prompt100+`","max_tokens":3}`)
	}
	status, b := ts.get(t, "/metrics")
	if status != http.StatusOK {
		t.Fatalf("GET /metrics = %d %s, want 200", status, b)
	}
	tests := []struct {
		name string
		want float64
	}{
		{"kvctl_requests_completed_total", 2},
		{"kvctl_prompt_tokens_total", 200},
		{"kvctl_reused_tokens_total", 96},
		{"kvctl_loaded_tokens_total", 0},
		{"kvctl_computed_tokens_total", 104},
		{"kvctl_generated_tokens_total", 6},
		{"kvctl_ttft_seconds_count", 2},
		{"kvctl_modelled_ttft_seconds_count", 2},
		{"kvctl_pool_keys", 6},
		{"master_key_count", 6},
		{"kvctl_prefix_lookups_total", 1}, // the repeat is all local
	}
	for _, tt := range tests {
		if got := metricValue(t, b, tt.name); got != tt.want {
			t.Errorf("/metrics %s = %v, want %v", tt.name, got, tt.want)
		}
	}
	// 6 pages put by the first request; the repeat, all local, saves its
	// 6 again from block 0, which the leasing exist finds stored.
	for _, want := range []string{`kvctl_transfer_pages_total{op="save"} 12`, "kvctl_pool_capacity_bytes", "master_total_capacity_bytes"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// statCounter is a pool that counts its Stat calls.
type statCounter struct {
	pool.Store
	calls atomic.Int64
}

func (s *statCounter) Stat(ctx context.Context) (pool.Stat, error) {
	s.calls.Add(1)
	return s.Store.Stat(ctx)
}

func TestMetricsStatOncePerScrape(t *testing.T) {
	counter := &statCounter{}
	ts := startServer(t, func(o *Options) { counter.Store = o.Pool; o.Pool = counter })
	for scrape := int64(1); scrape <= 2; scrape++ {
		before := counter.calls.Load()
		if status, b := ts.get(t, "/metrics"); status != http.StatusOK {
			t.Fatalf("GET /metrics = %d %s, want 200", status, b)
		}
		if got := counter.calls.Load() - before; got != 1 {
			t.Errorf("GET /metrics #%d called Stat %d times, want 1", scrape, got)
		}
	}
}

// TestMooncakeClient reads the server's pool as `kvctl holes --pool
// mooncake://ADDR` does.
func TestMooncakeClient(t *testing.T) {
	ts := startServer(t, nil)
	ts.complete(t, `{"prompt":"`+prompt100+`","max_tokens":3}`)
	ctx := context.Background()
	mc, err := mooncake.New(ctx, strings.TrimPrefix(ts.url, "http://"), mooncake.Options{})
	if err != nil {
		t.Fatalf("mooncake.New(server) = %v", err)
	}
	defer mc.Close()
	st, err := mc.Stat(ctx)
	if err != nil || st.Keys != 6 || st.CapacityBytes != 64<<20 {
		t.Fatalf("Stat() = %+v, %v, want 6 keys of a 64 MiB pool", st, err)
	}
	var listed []string
	err = mc.List(ctx, "", func(key string) error {
		listed = append(listed, key)
		return nil
	})
	if err != nil || len(listed) != 6 {
		t.Fatalf("List() = %d keys, %v, want 6", len(listed), err)
	}
	status := make([]int, 2)
	if err := mc.Exist(ctx, []string{listed[0], "absent"}, status); err != nil || status[0] != 1 || status[1] != 0 {
		t.Errorf("Exist([%s absent]) = %v, %v, want [1 0]", listed[0], status, err)
	}
}
