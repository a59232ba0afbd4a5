package mooncake

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

func TestApproximatePutsExisting(t *testing.T) {
	tests := []struct {
		name        string
		metrics     string
		want        int64
		approximate bool
	}{
		{"kvctl's own counter", "kvctl_puts_existing_total 7\nmaster_put_start_failures_total 9\n", 7, false},
		{"single and batch failures less allocation failures",
			"master_put_start_failures_total 9\nmaster_batch_put_start_failed_items_total 5\nmaster_put_start_alloc_failures_total 4\n", 10, true},
		{"never below zero", "master_put_start_failures_total 1\nmaster_put_start_alloc_failures_total 3\n", 0, true},
		{"no put counters", "master_key_count 3\n", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples, err := parseMetrics([]byte(tt.metrics))
			if err != nil {
				t.Fatal(err)
			}
			st, err := statFromMetrics(samples)
			if err != nil || st.PutsExisting != tt.want || st.PutsExistingApproximate != tt.approximate {
				t.Errorf("statFromMetrics(%q) = puts existing %d (approximate %v), %v, want %d (%v)",
					tt.metrics, st.PutsExisting, st.PutsExistingApproximate, err, tt.want, tt.approximate)
			}
		})
	}
}

func TestLostMetadataWarning(t *testing.T) {
	seg := []pool.Segment{{Name: "h:1", CapacityBytes: 1 << 30}}
	tests := []struct {
		name string
		stat pool.Stat
		want bool
	}{
		{"segments and no keys", pool.Stat{Segments: seg}, true},
		{"segments and keys", pool.Stat{Keys: 3, Segments: seg}, false},
		{"no segments", pool.Stat{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeStore()
			f.stat = tt.stat
			for i := range tt.stat.Keys {
				f.keys[string(rune('a'+i))] = nil
			}
			srv := httptest.NewServer(NewMasterHandler(f))
			defer srv.Close()
			s, err := New(context.Background(), srv.URL, fastOptions)
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.Stat(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got := len(st.Warnings) == 1 && strings.Contains(st.Warnings[0], "lost its metadata")
			if got != tt.want || (!tt.want && !cmp.Equal(st.Warnings, []string(nil))) {
				t.Errorf("Stat() over %+v: warnings %q, want a lost-metadata warning: %v", tt.stat, st.Warnings, tt.want)
			}
		})
	}
}
