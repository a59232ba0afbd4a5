package mooncake

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

// sample is one sample line of the Prometheus text format.
type sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// parseMetrics reads the Prometheus text exposition format strictly:
// comments and blank lines are skipped, every other line must be
// `name[{label="value",...}] value [timestamp]`.
func parseMetrics(body []byte) ([]sample, error) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), maxAnswer)
	var out []sample
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		s, err := parseSample(t)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// parseSample parses one trimmed sample line.
func parseSample(t string) (sample, error) {
	var s sample
	n := metricNameLen(t)
	if n == 0 {
		return s, fmt.Errorf("no metric name at %q", snippet([]byte(t)))
	}
	s.Name, t = t[:n], strings.TrimLeft(t[n:], " \t")
	if strings.HasPrefix(t, "{") {
		labels, rest, err := parseLabels(t[1:])
		if err != nil {
			return s, fmt.Errorf("%s: %w", s.Name, err)
		}
		s.Labels, t = labels, strings.TrimLeft(rest, " \t")
	}
	fields := strings.Fields(t)
	if len(fields) == 0 || len(fields) > 2 {
		return s, fmt.Errorf("%s: want a value and an optional timestamp, got %q", s.Name, t)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, fmt.Errorf("%s: value %q is not a number", s.Name, fields[0])
	}
	if len(fields) == 2 {
		if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
			return s, fmt.Errorf("%s: timestamp %q is not an integer", s.Name, fields[1])
		}
	}
	s.Value = v
	return s, nil
}

// metricNameLen is the length of the metric name that starts t.
func metricNameLen(t string) int {
	for i := 0; i < len(t); i++ {
		c := t[i]
		letter := c == '_' || c == ':' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return i
		}
	}
	return len(t)
}

// parseLabels parses `name="value",...}` (the opening brace already read)
// and returns the labels and what follows the closing brace.
func parseLabels(t string) (map[string]string, string, error) {
	labels := map[string]string{}
	for {
		t = strings.TrimLeft(t, " \t")
		if strings.HasPrefix(t, "}") {
			return labels, t[1:], nil
		}
		n := metricNameLen(t)
		if n == 0 || strings.Contains(t[:n], ":") {
			return nil, "", fmt.Errorf("bad label name at %q", snippet([]byte(t)))
		}
		name := t[:n]
		t = strings.TrimLeft(t[n:], " \t")
		if !strings.HasPrefix(t, "=") {
			return nil, "", fmt.Errorf("label %s: want =", name)
		}
		t = strings.TrimLeft(t[1:], " \t")
		value, rest, err := parseLabelValue(t)
		if err != nil {
			return nil, "", fmt.Errorf("label %s: %w", name, err)
		}
		if _, dup := labels[name]; dup {
			return nil, "", fmt.Errorf("label %s given twice", name)
		}
		labels[name] = value
		t = strings.TrimLeft(rest, " \t")
		if strings.HasPrefix(t, ",") {
			t = t[1:]
		} else if !strings.HasPrefix(t, "}") {
			return nil, "", fmt.Errorf("label %s: want , or }", name)
		}
	}
}

// parseLabelValue parses a quoted label value with the escapes \\, \" and \n.
func parseLabelValue(t string) (string, string, error) {
	if !strings.HasPrefix(t, `"`) {
		return "", "", errors.New("value is not quoted")
	}
	var b strings.Builder
	for i := 1; i < len(t); i++ {
		switch c := t[i]; c {
		case '"':
			return b.String(), t[i+1:], nil
		case '\\':
			i++
			if i == len(t) {
				return "", "", errors.New("unterminated value")
			}
			switch t[i] {
			case '\\', '"':
				b.WriteByte(t[i])
			case 'n':
				b.WriteByte('\n')
			default:
				return "", "", fmt.Errorf("bad escape \\%c", t[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("unterminated value")
}

// metricFields maps the metrics kvctl reads to the Stat fields they fill.
// kvctl_puts_existing_total is kvctl's own (NewMasterHandler serves it);
// a Mooncake master has no such counter.
var metricFields = map[string]func(*pool.Stat) *int64{
	"master_key_count":                      func(s *pool.Stat) *int64 { return &s.Keys },
	"master_soft_pin_key_count":             func(s *pool.Stat) *int64 { return &s.SoftPinnedKeys },
	"master_allocated_bytes":                func(s *pool.Stat) *int64 { return &s.UsedBytes },
	"master_total_capacity_bytes":           func(s *pool.Stat) *int64 { return &s.CapacityBytes },
	"master_evicted_key_count":              func(s *pool.Stat) *int64 { return &s.EvictedKeys },
	"master_evicted_size_bytes":             func(s *pool.Stat) *int64 { return &s.EvictedBytes },
	"master_attempted_evictions_total":      func(s *pool.Stat) *int64 { return &s.EvictionAttempts },
	"master_put_start_alloc_failures_total": func(s *pool.Stat) *int64 { return &s.AllocationFailure },
	"kvctl_puts_existing_total":             func(s *pool.Stat) *int64 { return &s.PutsExisting },
}

// statFromMetrics fills the Stat counters from metric samples, summing the
// samples of one name over their label sets. Metrics that are absent leave
// their fields zero.
func statFromMetrics(samples []sample) (pool.Stat, error) {
	var st pool.Stat
	sums := map[string]float64{}
	for _, s := range samples {
		if _, ok := metricFields[s.Name]; ok {
			sums[s.Name] += s.Value
		}
	}
	for name, v := range sums {
		n, err := count(name, v)
		if err != nil {
			return pool.Stat{}, err
		}
		*metricFields[name](&st) = n
	}
	return st, nil
}

// segmentsFromMetrics builds segments from the per-segment gauges
// segment_allocated_bytes and segment_total_capacity_bytes (label
// "segment"), sorted by name; nil when there are none.
func segmentsFromMetrics(samples []sample) ([]pool.Segment, error) {
	byName := map[string]*pool.Segment{}
	for _, s := range samples {
		if s.Name != "segment_allocated_bytes" && s.Name != "segment_total_capacity_bytes" {
			continue
		}
		name, ok := s.Labels["segment"]
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
		if s.Name == "segment_allocated_bytes" {
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
