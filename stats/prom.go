package stats

import (
	"github.com/prometheus/client_golang/prometheus"
)

// holesSeries are the prefix-hole counters: metric name suffix, help, value.
var holesSeries = []struct {
	name, help string
	value      func(Holes) int64
}{
	{"requests_total", "Requests counted.", func(h Holes) int64 { return h.Requests }},
	{"lookups_total", "Prefix lookups.", func(h Holes) int64 { return h.Lookups }},
	{"blocks_total", "Full prompt blocks of the requests.", func(h Holes) int64 { return h.Blocks }},
	{"looked_up_blocks_total", "Blocks examined by lookups.", func(h Holes) int64 { return h.LookedUpBlocks }},
	{"hit_blocks_total", "Leading blocks found in the pool.", func(h Holes) int64 { return h.HitBlocks }},
	{"holes_total", "Runs of missing blocks followed by a present block.", func(h Holes) int64 { return h.Holes }},
	{"hole_blocks_total", "Missing blocks inside holes.", func(h Holes) int64 { return h.HoleBlocks }},
	{"behind_hole_blocks_total", "Present blocks after the first missing block.", func(h Holes) int64 { return h.BehindHoleBlocks }},
	{"recomputed_tokens_total", "Stored tokens behind a hole, recomputed anyway.", func(h Holes) int64 { return h.RecomputedTokens }},
	{"prompt_tokens_total", "Prompt tokens of the requests.", func(h Holes) int64 { return h.PromptTokens }},
	{"hit_tokens_total", "Prompt tokens covered by hit blocks.", func(h Holes) int64 { return h.HitTokens }},
}

type holesCollector struct {
	snapshot func() Holes
	descs    []*prometheus.Desc
}

// NewHolesCollector returns a collector exposing the Holes that snapshot
// returns (cumulative, such as HolesRecorder.Total) as kvctl_prefix_*
// counters with constLabels. The caller registers it on its own registry.
func NewHolesCollector(snapshot func() Holes, constLabels prometheus.Labels) prometheus.Collector {
	c := &holesCollector{snapshot: snapshot}
	for _, s := range holesSeries {
		c.descs = append(c.descs, prometheus.NewDesc("kvctl_prefix_"+s.name, s.help, nil, constLabels))
	}
	return c
}

// Describe sends the collector's descriptors.
func (c *holesCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect sends the current counters.
func (c *holesCollector) Collect(ch chan<- prometheus.Metric) {
	h := c.snapshot()
	for i, s := range holesSeries {
		ch <- prometheus.MustNewConstMetric(c.descs[i], prometheus.CounterValue, float64(s.value(h)))
	}
}

type loadCollector struct {
	snapshot                               func() []Load
	pages, calls, bytes, failed            *prometheus.Desc
	phase, phaseCPU                        *prometheus.Desc
	wait, transfer, queue, active, workers *prometheus.Desc
}

// NewLoadCollector returns a collector exposing the Loads that snapshot
// returns (cumulative, such as LoadRecorder.Total of a load and a save
// recorder; loads of the same Op are merged) as kvctl_transfer_* and
// kvctl_async_load_* series labelled by op (and phase), with constLabels:
// counters for pages, store calls, bytes and failed pages, a histogram of
// each phase's wall time per run and a counter of its CPU time, and for
// asynchronous loads wait and transfer histograms and queue, active and
// worker gauges. The caller registers it on its own registry.
func NewLoadCollector(snapshot func() []Load, constLabels prometheus.Labels) prometheus.Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, constLabels)
	}
	return &loadCollector{
		snapshot: snapshot,
		pages:    d("kvctl_transfer_pages_total", "Pages moved.", "op"),
		calls:    d("kvctl_transfer_store_calls_total", "Batched store calls.", "op"),
		bytes:    d("kvctl_transfer_bytes_total", "Bytes landed.", "op"),
		failed:   d("kvctl_transfer_failed_pages_total", "Pages that failed to move.", "op"),
		phase:    d("kvctl_transfer_phase_seconds", "Wall time of one run of a transfer phase.", "op", "phase"),
		phaseCPU: d("kvctl_transfer_phase_cpu_seconds_total", "Thread CPU time of a transfer phase.", "op", "phase"),
		wait:     d("kvctl_async_load_wait_seconds", "Time an asynchronous load waited for a worker.", "op"),
		transfer: d("kvctl_async_load_transfer_seconds", "Transfer time of an asynchronous load.", "op"),
		queue:    d("kvctl_async_load_queue", "Asynchronous loads queued.", "op"),
		active:   d("kvctl_async_load_active", "Asynchronous loads transferring.", "op"),
		workers:  d("kvctl_async_load_workers", "Asynchronous load workers.", "op"),
	}
}

// Describe sends the collector's descriptors.
func (c *loadCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.pages, c.calls, c.bytes, c.failed, c.phase, c.phaseCPU,
		c.wait, c.transfer, c.queue, c.active, c.workers} {
		ch <- d
	}
}

// Collect sends the current values, one set per op.
func (c *loadCollector) Collect(ch chan<- prometheus.Metric) {
	for _, l := range mergeByOp(c.snapshot()) {
		op := string(l.Op)
		counter := func(d *prometheus.Desc, v float64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
		}
		counter(c.pages, float64(l.Pages), op)
		counter(c.calls, float64(l.StoreCalls), op)
		counter(c.bytes, float64(l.Bytes), op)
		counter(c.failed, float64(l.FailedPages), op)
		for i, p := range l.Phases {
			if p.Count == 0 {
				continue
			}
			name := Phase(i).String()
			ch <- constHistogram(c.phase, &p.hist, p.Count, p.Wall.Seconds(), op, name)
			counter(c.phaseCPU, p.CPU.Seconds(), op, name)
		}
		if a := l.Async; a != nil {
			ch <- constHistogram(c.wait, &a.waitHist, a.Completed, a.WaitSum.Seconds(), op)
			ch <- constHistogram(c.transfer, &a.transferHist, a.Completed, a.TransferSum.Seconds(), op)
			ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(a.Queue), op)
			ch <- prometheus.MustNewConstMetric(c.active, prometheus.GaugeValue, float64(a.Active), op)
			ch <- prometheus.MustNewConstMetric(c.workers, prometheus.GaugeValue, float64(a.Workers), op)
		}
	}
}

func constHistogram(d *prometheus.Desc, h *durationHist, count int64, sum float64, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(DurationBuckets))
	var cum uint64
	for i, bound := range DurationBuckets {
		cum += uint64(h[i])
		buckets[bound] = cum
	}
	return prometheus.MustNewConstHistogram(d, uint64(count), sum, buckets, labels...)
}

// mergeByOp merges loads of the same Op (an empty Op is a load), in order
// of first appearance.
func mergeByOp(loads []Load) []Load {
	var out []Load
	index := map[Op]int{}
	for _, l := range loads {
		if l.Op == "" {
			l.Op = OpLoad
		}
		i, seen := index[l.Op]
		if !seen {
			index[l.Op] = len(out)
			out = append(out, l.Clone())
			continue
		}
		out[i].Merge(l)
	}
	return out
}
