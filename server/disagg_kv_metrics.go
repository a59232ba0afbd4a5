package server

import (
	"github.com/kvctl/kvctl/engine"
	"github.com/prometheus/client_golang/prometheus"
)

// kvMetrics are a server's series of the KV transfer between a context
// and a generation server: what it sent, received and failed to receive.
type kvMetrics struct {
	sent, sentBytes, received, receivedBytes prometheus.Counter
	failures                                 *prometheus.CounterVec
}

func newKVMetrics(reg *prometheus.Registry) *kvMetrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	m := &kvMetrics{
		sent:          counter("kvctl_disagg_kv_sent_total", "Requests whose held KV a generation server took from this context server."),
		sentBytes:     counter("kvctl_disagg_kv_sent_bytes_total", "Bytes of KV pages this context server sent."),
		received:      counter("kvctl_disagg_kv_received_total", "Requests whose KV this generation server received from a context server."),
		receivedBytes: counter("kvctl_disagg_kv_received_bytes_total", "Bytes of KV pages this generation server received."),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kvctl_disagg_kv_receive_failures_total",
			Help: "KV receives that failed (DISAGG_TRANS_ERROR), by reason: timeout (--kv-transfer-timeout), error (the context server's answer or the network), fault (--fault-kv-transfer-error-rate), refused (pages that differ from the model's, or hashes not the prompt's)."},
			[]string{"reason"}),
	}
	reg.MustRegister(m.sent, m.sentBytes, m.received, m.receivedBytes, m.failures)
	return m
}

// kvSeries are the engine's counters of KV holds and installs.
var kvSeries = []series{
	{"kvctl_disagg_kv_held", "Requests whose KV this context server holds for a generation server.", prometheus.GaugeValue, func(s engine.LiveStats) float64 { return float64(s.KVHeld) }},
	{"kvctl_disagg_kv_sent_blocks_total", "KV blocks this context server sent.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.KVSentBlocks) }},
	{"kvctl_disagg_kv_expired_total", "Holds that ended untaken after --kv-transfer-timeout.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.KVExpired) }},
	{"kvctl_disagg_kv_released_total", "Holds a generation server released after its receive failed.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.KVReleased) }},
	{"kvctl_disagg_kv_installed_blocks_total", "Received KV blocks installed as a request's prefix: prompt tokens not computed again.", prometheus.CounterValue, func(s engine.LiveStats) float64 { return float64(s.KVInstalledBlocks) }},
}
