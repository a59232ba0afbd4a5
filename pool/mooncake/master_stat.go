package mooncake

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

func (h *masterHandler) segmentsDetail(w http.ResponseWriter, r *http.Request) {
	st, err := h.s.Stat(r.Context())
	if err != nil {
		writeJSON(w, failureStatus(err), codedError{ErrorCode: int(pool.CodeOf(err)), ErrorMessage: "Failed to get segments detail: " + err.Error()})
		return
	}
	a := struct {
		TotalSegments int             `json:"total_segments"`
		Segments      []segmentDetail `json:"segments"`
	}{len(st.Segments), make([]segmentDetail, 0, len(st.Segments))}
	for _, s := range st.Segments {
		d := segmentDetail{
			SegmentName:            s.Name,
			SizeBytes:              uint64(max(s.CapacityBytes, 0)),
			AllocatorUsedBytes:     uint64(max(s.UsedBytes, 0)),
			AllocatorCapacityBytes: uint64(max(s.CapacityBytes, 0)),
		}
		if s.CapacityBytes > 0 {
			d.AllocatorUsagePercent = float64(s.UsedBytes) / float64(s.CapacityBytes) * 100
		}
		a.Segments = append(a.Segments, d)
	}
	writeJSON(w, http.StatusOK, a)
}

// exportedMetrics are the metrics /metrics serves from a Stat, in order.
var exportedMetrics = []struct {
	name, kind, help string
	value            func(*pool.Stat) int64
}{
	{"master_key_count", "gauge", "Total number of keys managed by the master", func(s *pool.Stat) int64 { return s.Keys }},
	{"master_soft_pin_key_count", "gauge", "Total number of soft-pinned keys managed by the master", func(s *pool.Stat) int64 { return s.SoftPinnedKeys }},
	{"master_allocated_bytes", "gauge", "Total bytes allocated in all segments", func(s *pool.Stat) int64 { return s.UsedBytes }},
	{"master_total_capacity_bytes", "gauge", "Total capacity of all mounted segments", func(s *pool.Stat) int64 { return s.CapacityBytes }},
	{"master_attempted_evictions_total", "counter", "Total number of attempted eviction operations", func(s *pool.Stat) int64 { return s.EvictionAttempts }},
	{"master_evicted_key_count", "counter", "Total number of keys evicted", func(s *pool.Stat) int64 { return s.EvictedKeys }},
	{"master_evicted_size_bytes", "counter", "Total bytes of evicted objects", func(s *pool.Stat) int64 { return s.EvictedBytes }},
	{"master_put_start_alloc_failures_total", "counter", "Total number of puts that found no room", func(s *pool.Stat) int64 { return s.AllocationFailure }},
	{"kvctl_puts_existing_total", "counter", "Total number of puts of a key already present (kvctl's own counter)", func(s *pool.Stat) int64 { return s.PutsExisting }},
}

func (h *masterHandler) metrics(w http.ResponseWriter, r *http.Request) {
	st, err := h.s.Stat(r.Context())
	if err != nil {
		http.Error(w, "Failed to read pool statistics: "+err.Error(), failureStatus(err))
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	w.Write(formatMetrics(&st))
}

// formatMetrics renders a Stat in the Prometheus text format.
func formatMetrics(st *pool.Stat) []byte {
	var b bytes.Buffer
	for _, m := range exportedMetrics {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", m.name, m.help, m.name, m.kind, m.name, m.value(st))
	}
	if len(st.Segments) == 0 {
		return b.Bytes()
	}
	segmentGauge(&b, st.Segments, "segment_allocated_bytes", "Bytes allocated in the segment",
		func(s pool.Segment) int64 { return s.UsedBytes })
	segmentGauge(&b, st.Segments, "segment_total_capacity_bytes", "Capacity of the segment",
		func(s pool.Segment) int64 { return s.CapacityBytes })
	return b.Bytes()
}

// segmentGauge renders one gauge with a sample per segment.
func segmentGauge(b *bytes.Buffer, segs []pool.Segment, name, help string, value func(pool.Segment) int64) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name)
	for _, s := range segs {
		fmt.Fprintf(b, "%s{segment=\"%s\"} %s\n", name, escapeLabel(s.Name), strconv.FormatInt(value(s), 10))
	}
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// escapeLabel escapes a label value for the text format.
func escapeLabel(v string) string { return labelEscaper.Replace(v) }
