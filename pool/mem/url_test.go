package mem

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kvctl/kvctl/pool"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		url  string
		want Options
	}{
		{"mem://", Options{}},
		{"mem:", Options{}},
		{"mem:///", Options{}},
		{"mem://?capacity=64GiB&segments=4", Options{Capacity: 64 << 30, Segments: 4}},
		{"mem://?capacity=1.5GiB&arena=4MiB&metadata_only=true&preallocate=false", Options{Capacity: 3 << 29, ArenaSize: 4 << 20, MetadataOnly: true}},
		{"mem://?lease_ttl=5s&soft_pin_ttl=1m&max_soft_pin_ttl=2h", Options{LeaseTTL: 5 * time.Second, SoftPinTTL: time.Minute, MaxSoftPinTTL: 2 * time.Hour}},
		{"mem://?watermark=0.8&eviction_ratio=0.1&evict_soft_pinned=false&eviction=manual", Options{HighWatermark: 0.8, EvictionRatio: 0.1, KeepSoftPinned: true, Eviction: EvictManual}},
		{"mem://?snapshot=/tmp/pool%20a.snap&eviction=background", Options{SnapshotPath: "/tmp/pool a.snap"}},
		{"mem://?watermark=0&eviction_ratio=0", Options{ZeroHighWatermark: true, ZeroEvictionRatio: true}},
		{"mem://?watermark=1&eviction_ratio=1", Options{HighWatermark: 1, EvictionRatio: 1}},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseURL(u)
		if err != nil {
			t.Errorf("ParseURL(%q) = %v, want nil", tt.url, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Options{}, "Now")); diff != "" {
			t.Errorf("ParseURL(%q) mismatch (-want +got):\n%s", tt.url, diff)
		}
	}
}

func TestParseURLErrors(t *testing.T) {
	tests := []struct {
		url, want string
	}{
		{"mem://?capacity=64GB", "capacity"},
		{"mem://?capacity=0", "capacity"},
		{"mem://?capacity=2PiB", "capacity"},
		{"mem://?segments=0", "segments"},
		{"mem://?segments=x", "segments"},
		{"mem://?segments=2&segments=3", `"segments" is given 2 times`},
		{"mem://?capacity=64&segments=2", "too small"},
		{"mem://?arena=100", "arena size 100"},
		{"mem://?metadata_only=maybe", "metadata_only"},
		{"mem://?lease_ttl=10", "lease_ttl"},
		{"mem://?soft_pin_ttl=-1s", "soft_pin_ttl"},
		{"mem://?soft_pin_ttl=48h", "above the max soft pin TTL"},
		{"mem://?watermark=1.5", "watermark"},
		{"mem://?eviction_ratio=1.01", "eviction_ratio"},
		{"mem://?eviction_ratio=-0.1", "eviction_ratio"},
		{"mem://?watermark=NaN", "watermark"},
		{"mem://?eviction=sometimes", "eviction"},
		{"mem://?snapshot=", "snapshot"},
		{"mem://?capcity=1GiB", `unknown parameter "capcity"`},
		{"mem://host", "no host"},
		{"mem:///path", "no host, path"},
		{"mem:opaque", "no host"},
		{"mem://?a=%zz", "query"},
		{"redis://", "not mem"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ParseURL(u)
		if !errors.Is(err, pool.ErrBadURL) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseURL(%q) = %v, want an error wrapping ErrBadURL containing %q", tt.url, err, tt.want)
		}
	}
}

func TestOpenRegistered(t *testing.T) {
	s, err := pool.Open(context.Background(), "mem://?capacity=1MiB&segments=2&eviction=manual&metadata_only=true")
	if err != nil {
		t.Fatalf("pool.Open(mem://...) = %v", err)
	}
	defer s.Close()
	st, err := s.Stat(context.Background())
	if err != nil || st.CapacityBytes != 1<<20 || len(st.Segments) != 2 || st.Address != "mem://?capacity=1MiB&metadata_only=true&segments=2" {
		t.Errorf("Stat() = %+v, %v, want 1 MiB in 2 segments", st, err)
	}
	if _, err := pool.Open(context.Background(), "mem://?bogus=1"); !errors.Is(err, pool.ErrBadURL) {
		t.Errorf("pool.Open(mem://?bogus=1) = %v, want ErrBadURL", err)
	}
}
