package mooncake

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// sample is one gauge, counter or untyped sample of a /metrics answer.
type sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// parseMetrics reads the Prometheus text exposition format (expfmt's
// parser) and returns its gauge, counter and untyped samples, ordered by
// name and then as given; histograms and summaries are left out (kvctl
// reads none). Lines may end in \r\n and the last needs no newline.
func parseMetrics(body []byte) ([]sample, error) {
	if bytes.IndexByte(body, '\r') >= 0 {
		body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	}
	if len(body) > 0 && body[len(body)-1] != '\n' {
		body = append(body[:len(body):len(body)], '\n')
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	var out []sample
	for _, name := range slices.Sorted(maps.Keys(families)) {
		f := families[name]
		for _, m := range f.GetMetric() {
			v, ok := simpleValue(f.GetType(), m)
			if !ok {
				continue
			}
			out = append(out, sample{Name: name, Labels: labelMap(m.GetLabel()), Value: v})
		}
	}
	return out, nil
}

// simpleValue is the value of a gauge, counter or untyped metric.
func simpleValue(t dto.MetricType, m *dto.Metric) (float64, bool) {
	switch t {
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue(), true
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue(), true
	case dto.MetricType_UNTYPED:
		return m.GetUntyped().GetValue(), true
	}
	return 0, false
}

// labelMap returns the labels by name (nil when there are none; the
// parser refuses a label named twice).
func labelMap(pairs []*dto.LabelPair) map[string]string {
	if len(pairs) == 0 {
		return nil
	}
	labels := make(map[string]string, len(pairs))
	for _, l := range pairs {
		labels[l.GetName()] = l.GetValue()
	}
	return labels
}

// statFromMetrics fills the Stat counters from metric samples, summing the
// samples of one name over their label sets. The names are those
// stats.NewPoolCollector exports (stats.MasterStatField); metrics that are
// absent leave their fields zero. A master without kvctl's own
// kvctl_puts_existing_total gets PutsExisting from its PutStart failures,
// marked approximate (approximatePutsExisting).
func statFromMetrics(samples []sample) (pool.Stat, error) {
	var st pool.Stat
	sums := map[string]float64{}
	for _, s := range samples {
		sums[s.Name] += s.Value
	}
	for name, v := range sums {
		field := stats.MasterStatField(&st, name)
		if field == nil {
			continue
		}
		n, err := count(name, v)
		if err != nil {
			return pool.Stat{}, err
		}
		*field = n
	}
	if err := approximatePutsExisting(&st, sums); err != nil {
		return pool.Stat{}, err
	}
	return st, nil
}

// segmentsFromMetrics builds segments from the per-segment gauges
// segment_allocated_bytes and segment_total_capacity_bytes (label
// "segment"), sorted by name; nil when there are none.
func segmentsFromMetrics(samples []sample) ([]pool.Segment, error) {
	byName := map[string]*pool.Segment{}
	for _, s := range samples {
		if s.Name != stats.SegmentUsedMetric && s.Name != stats.SegmentCapacityMetric {
			continue
		}
		name, ok := s.Labels[stats.SegmentLabel]
		if !ok {
			continue
		}
		n, err := count(s.Name, s.Value)
		if err != nil {
			return nil, err
		}
		seg := byName[name]
		if seg == nil {
			seg = &pool.Segment{Name: name}
			byName[name] = seg
		}
		if s.Name == stats.SegmentUsedMetric {
			seg.UsedBytes = n
		} else {
			seg.CapacityBytes = n
		}
	}
	var out []pool.Segment
	for _, seg := range byName {
		out = append(out, *seg)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// count converts a metric value to an integer count.
func count(name string, v float64) (int64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= math.MaxInt64 {
		return 0, fmt.Errorf("%s = %v is not a count", name, v)
	}
	return int64(math.Round(v)), nil
}
