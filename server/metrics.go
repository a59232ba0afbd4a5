package server

import (
	"net/http"
	"slices"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ttftBuckets are the TTFT histogram buckets, in seconds.
var ttftBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// metrics is the server's own registry (never the global one).
type metrics struct {
	reg          *prometheus.Registry
	ttft         prometheus.Histogram
	modelledTTFT prometheus.Histogram
	kv           *kvMetrics
}

func newMetrics(live *engine.Live, p pool.Store) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.ttft = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kvctl_ttft_seconds",
		Help: "Wall time from a completion request's arrival to its first token.", Buckets: ttftBuckets})
	m.modelledTTFT = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kvctl_modelled_ttft_seconds",
		Help: "Modelled (engine clock) time to first token of completed requests.", Buckets: ttftBuckets})
	m.reg.MustRegister(m.ttft, m.modelledTTFT, newEngineCollector(live), stats.NewPoolCollector(p.Stat, stats.PoolCollectorOptions{KvctlSeries: true}),
		stats.NewHolesCollector(live.Holes, nil), stats.NewLoadCollector(live.Transfers, nil))
	m.kv = newKVMetrics(m.reg)
	return m
}

// handler serves the registry: the server's own series, and the pool's
// as a Mooncake master serves them (stats.NewPoolCollector) with the
// kvctl_pool_* series beside them, from one pool.Stat per scrape.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError})
}

// series is one engine counter or gauge.
type series struct {
	name, help string
	kind       prometheus.ValueType
	value      func(engine.LiveStats) float64
}

var engineSeries = []series{
	{"kvctl_requests_total", "Completion requests the engine received.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.Requests) }},
	{"kvctl_requests_completed_total", "Requests that produced all their tokens.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.Completed) }},
	{"kvctl_requests_failed_total", "Requests refused, cancelled or lost to a stop.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.Failed) }},
	{"kvctl_requests_cancelled_total", "Requests cancelled by their client (in failed too).", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.Cancelled) }},
	{"kvctl_requests_waiting", "Requests queued.", prometheus.GaugeValue, func(s engine.LiveStats) float64 { return float64(s.Waiting) }},
	{"kvctl_requests_running", "Requests admitted.", prometheus.GaugeValue, func(s engine.LiveStats) float64 { return float64(s.Running) }},
	{"kvctl_prompt_tokens_total", "Prompt tokens of the requests received.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.PromptTokens) }},
	{"kvctl_reused_tokens_total", "Prompt tokens of completed requests reused from the local prefix cache.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.LocalHitTokens) }},
	{"kvctl_loaded_tokens_total", "Prompt tokens of completed requests loaded from the pool.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.PoolHitTokens) }},
	{"kvctl_computed_tokens_total", "Prompt tokens computed by forward passes, recomputations included.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.ComputedPromptTokens) }},
	{"kvctl_generated_tokens_total", "Tokens generated and streamed.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.GeneratedTokens) }},
	{"kvctl_restarts_total", "Readmissions after a page went missing at load time.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.Restarts) }},
	{"kvctl_preemptions_total", "Readmissions after running out of KV pages.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.Preemptions) }},
	{"kvctl_verify_mismatches_total", "Loaded pages that differ from the computed ones.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.VerifyMismatches) }},
	{"kvctl_iterations_total", "Engine passes.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.Iterations) }},
	{"kvctl_engine_clock_seconds", "The engine's virtual clock.", prometheus.GaugeValue, func(s engine.LiveStats) float64 { return s.VirtualMS / 1000 }},
}

// engineCollector exposes engine.LiveStats.
type engineCollector struct {
	live   *engine.Live
	series []series
	descs  []*prometheus.Desc
}

func newEngineCollector(live *engine.Live) *engineCollector {
	c := &engineCollector{live: live, series: append(slices.Clip(engineSeries), kvSeries...)}
	for _, s := range c.series {
		c.descs = append(c.descs, prometheus.NewDesc(s.name, s.help, nil, nil))
	}
	return c
}

// Describe sends the descriptors.
func (c *engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect sends the engine's counters as of its last pass.
func (c *engineCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.live.Stats()
	for i, s := range c.series {
		ch <- prometheus.MustNewConstMetric(c.descs[i], s.kind, s.value(st))
	}
}
