package stats

import (
	"context"
	"fmt"
	"strings"

	"github.com/kvctl/kvctl/pool"
	"github.com/prometheus/client_golang/prometheus"
)

// The per-segment gauges of a Mooncake master's /metrics, one sample per
// segment, labelled by the segment's name.
const (
	SegmentUsedMetric     = "segment_allocated_bytes"
	SegmentCapacityMetric = "segment_total_capacity_bytes"
	SegmentLabel          = "segment"
)

// poolSeries is one count of a pool.Stat exported as a series.
type poolSeries struct {
	name, help string
	kind       prometheus.ValueType
	field      func(*pool.Stat) *int64
}

// masterSeries are the counts of a pool.Stat under a Mooncake master's
// metric names, plus kvctl_puts_existing_total (kvctl's own: a master has
// no such counter).
var masterSeries = []poolSeries{
	{"master_key_count", "Total number of keys managed by the master", prometheus.GaugeValue, func(s *pool.Stat) *int64 { return &s.Keys }},
	{"master_soft_pin_key_count", "Total number of soft-pinned keys managed by the master", prometheus.GaugeValue, func(s *pool.Stat) *int64 { return &s.SoftPinnedKeys }},
	{"master_allocated_bytes", "Total bytes allocated in all segments", prometheus.GaugeValue, func(s *pool.Stat) *int64 { return &s.UsedBytes }},
	{"master_total_capacity_bytes", "Total capacity of all mounted segments", prometheus.GaugeValue, func(s *pool.Stat) *int64 { return &s.CapacityBytes }},
	{"master_attempted_evictions_total", "Total number of attempted eviction operations", prometheus.CounterValue, func(s *pool.Stat) *int64 { return &s.EvictionAttempts }},
	{"master_evicted_key_count", "Total number of keys evicted", prometheus.CounterValue, func(s *pool.Stat) *int64 { return &s.EvictedKeys }},
	{"master_evicted_size_bytes", "Total bytes of evicted objects", prometheus.CounterValue, func(s *pool.Stat) *int64 { return &s.EvictedBytes }},
	{"master_put_start_alloc_failures_total", "Total number of puts that found no room", prometheus.CounterValue, func(s *pool.Stat) *int64 { return &s.AllocationFailure }},
	{"kvctl_puts_existing_total", "Total number of puts of a key already present (kvctl's own counter)", prometheus.CounterValue, func(s *pool.Stat) *int64 { return &s.PutsExisting }},
}

// kvctlPoolSeries are kvctl serve's own names for the pool's occupancy and
// evictions.
var kvctlPoolSeries = []poolSeries{
	{"kvctl_pool_keys", "Keys in the pool.", prometheus.GaugeValue, func(s *pool.Stat) *int64 { return &s.Keys }},
	{"kvctl_pool_used_bytes", "Bytes allocated in the pool.", prometheus.GaugeValue, func(s *pool.Stat) *int64 { return &s.UsedBytes }},
	{"kvctl_pool_capacity_bytes", "Capacity of the pool.", prometheus.GaugeValue, func(s *pool.Stat) *int64 { return &s.CapacityBytes }},
	{"kvctl_pool_evicted_keys_total", "Keys evicted from the pool.", prometheus.CounterValue, func(s *pool.Stat) *int64 { return &s.EvictedKeys }},
	{"kvctl_pool_evicted_bytes_total", "Bytes evicted from the pool.", prometheus.CounterValue, func(s *pool.Stat) *int64 { return &s.EvictedBytes }},
}

// MasterStatField returns the field of st that the master's series called
// name carries (see NewPoolCollector), or nil when name is none of them.
// It is how a live master's /metrics is read back into a pool.Stat.
func MasterStatField(st *pool.Stat, name string) *int64 {
	for _, s := range masterSeries {
		if s.name == name {
			return s.field(st)
		}
	}
	return nil
}

// PoolCollectorOptions are the options of NewPoolCollector.
type PoolCollectorOptions struct {
	// KvctlSeries adds the kvctl_pool_* series (keys, used and capacity
	// bytes, evicted keys and bytes) beside the master's. Default: only
	// the master's.
	KvctlSeries bool
}

type poolCollector struct {
	stat                 func(context.Context) (pool.Stat, error)
	series               []poolSeries
	descs                []*prometheus.Desc
	segUsed, segCapacity *prometheus.Desc
}

// NewPoolCollector returns a collector that calls stat once per collection
// and exposes the pool.Stat as a Mooncake master does (the master_*
// gauges and counters, kvctl_puts_existing_total, and the
// segment_allocated_bytes and segment_total_capacity_bytes gauges with a
// segment label; an invalid UTF-8 segment name has its bad bytes replaced
// by U+FFFD, as in JSON), optionally with the kvctl_pool_* series too. A
// failing stat makes the collection fail with its error. The caller
// registers it on its own registry.
func NewPoolCollector(stat func(context.Context) (pool.Stat, error), opts PoolCollectorOptions) prometheus.Collector {
	c := &poolCollector{stat: stat, series: masterSeries}
	if opts.KvctlSeries {
		c.series = append(append([]poolSeries(nil), masterSeries...), kvctlPoolSeries...)
	}
	for _, s := range c.series {
		c.descs = append(c.descs, prometheus.NewDesc(s.name, s.help, nil, nil))
	}
	c.segUsed = prometheus.NewDesc(SegmentUsedMetric, "Bytes allocated in the segment", []string{SegmentLabel}, nil)
	c.segCapacity = prometheus.NewDesc(SegmentCapacityMetric, "Capacity of the segment", []string{SegmentLabel}, nil)
	return c
}

// Describe sends the collector's descriptors.
func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
	ch <- c.segUsed
	ch <- c.segCapacity
}

// Collect asks stat once and sends its counts and per-segment gauges.
func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	st, err := c.stat(context.Background())
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.descs[0], fmt.Errorf("reading the pool statistics: %w", err))
		return
	}
	for i, s := range c.series {
		ch <- prometheus.MustNewConstMetric(c.descs[i], s.kind, float64(*s.field(&st)))
	}
	for _, seg := range st.Segments {
		name := strings.ToValidUTF8(seg.Name, "\uFFFD")
		ch <- prometheus.MustNewConstMetric(c.segUsed, prometheus.GaugeValue, float64(seg.UsedBytes), name)
		ch <- prometheus.MustNewConstMetric(c.segCapacity, prometheus.GaugeValue, float64(seg.CapacityBytes), name)
	}
}
