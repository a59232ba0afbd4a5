package stats

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// masterExposition is what a master-compatible /metrics serves for
// testStat: the names, help texts and label a Mooncake master uses.
const masterExposition = `# HELP kvctl_puts_existing_total Total number of puts of a key already present (kvctl's own counter)
# TYPE kvctl_puts_existing_total counter
kvctl_puts_existing_total 9
# HELP master_allocated_bytes Total bytes allocated in all segments
# TYPE master_allocated_bytes gauge
master_allocated_bytes 128
# HELP master_attempted_evictions_total Total number of attempted eviction operations
# TYPE master_attempted_evictions_total counter
master_attempted_evictions_total 5
# HELP master_evicted_key_count Total number of keys evicted
# TYPE master_evicted_key_count counter
master_evicted_key_count 2
# HELP master_evicted_size_bytes Total bytes of evicted objects
# TYPE master_evicted_size_bytes counter
master_evicted_size_bytes 64
# HELP master_key_count Total number of keys managed by the master
# TYPE master_key_count gauge
master_key_count 3
# HELP master_put_start_alloc_failures_total Total number of puts that found no room
# TYPE master_put_start_alloc_failures_total counter
master_put_start_alloc_failures_total 7
# HELP master_soft_pin_key_count Total number of soft-pinned keys managed by the master
# TYPE master_soft_pin_key_count gauge
master_soft_pin_key_count 1
# HELP master_total_capacity_bytes Total capacity of all mounted segments
# TYPE master_total_capacity_bytes gauge
master_total_capacity_bytes 4096
# HELP segment_allocated_bytes Bytes allocated in the segment
# TYPE segment_allocated_bytes gauge
segment_allocated_bytes{segment="a\"b\\c\n"} 100
segment_allocated_bytes{segment="h:1"} 28
# HELP segment_total_capacity_bytes Capacity of the segment
# TYPE segment_total_capacity_bytes gauge
segment_total_capacity_bytes{segment="a\"b\\c\n"} 2048
segment_total_capacity_bytes{segment="h:1"} 2048
`

// kvctlPoolExposition is what KvctlSeries adds for testStat.
const kvctlPoolExposition = `# HELP kvctl_pool_capacity_bytes Capacity of the pool.
# TYPE kvctl_pool_capacity_bytes gauge
kvctl_pool_capacity_bytes 4096
# HELP kvctl_pool_evicted_bytes_total Bytes evicted from the pool.
# TYPE kvctl_pool_evicted_bytes_total counter
kvctl_pool_evicted_bytes_total 64
# HELP kvctl_pool_evicted_keys_total Keys evicted from the pool.
# TYPE kvctl_pool_evicted_keys_total counter
kvctl_pool_evicted_keys_total 2
# HELP kvctl_pool_keys Keys in the pool.
# TYPE kvctl_pool_keys gauge
kvctl_pool_keys 3
# HELP kvctl_pool_used_bytes Bytes allocated in the pool.
# TYPE kvctl_pool_used_bytes gauge
kvctl_pool_used_bytes 128
`

var testStat = pool.Stat{Keys: 3, SoftPinnedKeys: 1, UsedBytes: 128, CapacityBytes: 4096, EvictionAttempts: 5,
	EvictedKeys: 2, EvictedBytes: 64, AllocationFailure: 7, PutsExisting: 9,
	Segments: []pool.Segment{{Name: "h:1", CapacityBytes: 2048, UsedBytes: 28}, {Name: "a\"b\\c\n", CapacityBytes: 2048, UsedBytes: 100}}}

// countingStat returns testStat and counts its calls.
type countingStat struct{ calls int }

func (c *countingStat) stat(context.Context) (pool.Stat, error) {
	c.calls++
	return testStat, nil
}

func TestPoolCollector(t *testing.T) {
	tests := []struct {
		name string
		opts PoolCollectorOptions
		want string
	}{
		{"master", PoolCollectorOptions{}, masterExposition},
		{"kvctl series too", PoolCollectorOptions{KvctlSeries: true}, kvctlPoolExposition + masterExposition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var counter countingStat
			c := NewPoolCollector(counter.stat, tt.opts)
			if diff := cmp.Diff(tt.want, exposition(t, c)); diff != "" {
				t.Errorf("NewPoolCollector(%+v) exposition (-want +got):\n%s", tt.opts, diff)
			}
			if counter.calls != 1 {
				t.Errorf("NewPoolCollector(%+v) called stat %d times for one collection, want 1", tt.opts, counter.calls)
			}
		})
	}
}

// exposition gathers c once and renders it in the text format.
func exposition(t *testing.T, c prometheus.Collector) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("Gather() = %v", err)
	}
	var b strings.Builder
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			t.Fatalf("MetricFamilyToText(%s) = %v", mf.GetName(), err)
		}
	}
	return b.String()
}

func TestPoolCollectorFails(t *testing.T) {
	unreachable := func(context.Context) (pool.Stat, error) { return pool.Stat{}, pool.ErrUnreachable }
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewPoolCollector(unreachable, PoolCollectorOptions{KvctlSeries: true}))
	if _, err := reg.Gather(); err == nil || !strings.Contains(err.Error(), "reading the pool statistics: pool unreachable") {
		t.Errorf("Gather() = %v, want the pool's error", err)
	}
}

func TestPoolCollectorInvalidUTF8(t *testing.T) {
	st := pool.Stat{Segments: []pool.Segment{{Name: "s\xff", CapacityBytes: 1}}}
	mfs := gather(t, NewPoolCollector(func(context.Context) (pool.Stat, error) { return st, nil }, PoolCollectorOptions{}))
	got := mfs[SegmentCapacityMetric].GetMetric()[0].GetLabel()[0].GetValue()
	if want := "s\uFFFD"; got != want {
		t.Errorf("segment label of %q = %q, want %q", st.Segments[0].Name, got, want)
	}
}

func TestMasterStatField(t *testing.T) {
	var st pool.Stat
	for _, s := range masterSeries {
		p := MasterStatField(&st, s.name)
		if p == nil {
			t.Fatalf("MasterStatField(%s) = nil, want a field", s.name)
		}
		*p = 1
	}
	want := pool.Stat{Keys: 1, SoftPinnedKeys: 1, UsedBytes: 1, CapacityBytes: 1, EvictionAttempts: 1,
		EvictedKeys: 1, EvictedBytes: 1, AllocationFailure: 1, PutsExisting: 1}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("MasterStatField of every master series (-want +got):\n%s", diff)
	}
	for _, name := range []string{"kvctl_pool_keys", "master_successful_evictions_total", ""} {
		if p := MasterStatField(&st, name); p != nil {
			t.Errorf("MasterStatField(%q) = a field, want nil", name)
		}
	}
}
