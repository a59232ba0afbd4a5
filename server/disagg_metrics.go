package server

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// legBuckets are the leg latency histogram buckets, in seconds.
var legBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180}

// frontMetrics are the disaggregated front's series, per leg (context,
// generation) and server, in its own registry.
type frontMetrics struct {
	reg      *prometheus.Registry
	legs     *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
	inFlight *prometheus.GaugeVec
	ttft     prometheus.Histogram
}

func newFrontMetrics() *frontMetrics {
	m := &frontMetrics{reg: prometheus.NewRegistry()}
	m.legs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kvctl_disagg_leg_requests_total",
		Help: "Requests the front sent to a context or generation server, by outcome: ok, or the HTTP status the front answered (the upstream's, 502 unreachable, 504 timed out, 499 client gone)."},
		[]string{"leg", "server", "outcome"})
	m.seconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kvctl_disagg_leg_seconds",
		Help: "Wall time of a leg: the context leg to its whole answer, the generation leg to its first chunk (a stream) or whole answer.", Buckets: legBuckets},
		[]string{"leg"})
	m.inFlight = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kvctl_disagg_leg_in_flight",
		Help: "Requests in flight through the front on a context or generation server."}, []string{"leg", "server"})
	m.ttft = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kvctl_disagg_ttft_seconds",
		Help: "Wall time from a request's arrival at the front to its first relayed chunk or whole answer.", Buckets: legBuckets})
	m.reg.MustRegister(m.legs, m.seconds, m.inFlight, m.ttft)
	return m
}

// observe counts a leg's outcome and, when it succeeded, its latency.
func (m *frontMetrics) observe(leg, server, outcome string, since time.Time) {
	m.legs.WithLabelValues(leg, server, outcome).Inc()
	if outcome == outcomeOK {
		m.seconds.WithLabelValues(leg).Observe(time.Since(since).Seconds())
	}
}

const outcomeOK = "ok"

func (m *frontMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError})
}
