package mooncake

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// metricsContentType is the Content-Type of the master's text answers.
const metricsContentType = "text/plain; version=0.0.4"

// stat asks the store for its statistics; on failure it answers the
// request itself, in text ("Failed to WHAT: ...").
func (h *masterHandler) stat(w http.ResponseWriter, r *http.Request, what string) (pool.Stat, bool) {
	st, err := h.s.Stat(r.Context())
	if err != nil {
		http.Error(w, "Failed to "+what+": "+err.Error(), failureStatus(err))
		return pool.Stat{}, false
	}
	return st, true
}

func (h *masterHandler) segmentsDetail(w http.ResponseWriter, r *http.Request) {
	st, err := h.s.Stat(r.Context())
	if err != nil {
		writeJSON(w, failureStatus(err), codedError{ErrorCode: int(pool.CodeOf(err)), ErrorMessage: "Failed to get segments detail: " + err.Error()})
		return
	}
	a := segmentsAnswer{Segments: make([]segmentDetail, 0, len(st.Segments))}
	for i, s := range st.Segments {
		a.Segments = append(a.Segments, detailOf(i, s))
	}
	total := uint64(len(a.Segments))
	a.TotalSegments = &total
	writeJSON(w, http.StatusOK, a)
}

// detailOf is segment i's /get_segments_detail entry. kvctl's ids are its
// own ("0-1" the client, "0-N" segment N-1); a segment is mapped at no
// address (base 0x0) and reached by its name (te_endpoint).
func detailOf(i int, s pool.Segment) segmentDetail {
	capacity, used := uint64(max(s.CapacityBytes, 0)), uint64(max(s.UsedBytes, 0))
	d := segmentDetail{
		SegmentName:            s.Name,
		SegmentID:              "0-" + strconv.Itoa(i+1),
		ClientID:               "0-1",
		BaseAddress:            "0x0",
		SizeBytes:              capacity,
		SizeHuman:              strconv.FormatFloat(float64(capacity)/(1<<30), 'g', 6, 64) + " GiB",
		TEEndpoint:             s.Name,
		Protocol:               "tcp",
		Status:                 "OK",
		AllocatorUsedBytes:     used,
		AllocatorCapacityBytes: capacity,
	}
	if capacity > 0 {
		d.AllocatorUsagePercent = sciFloat(float64(used) / float64(capacity) * 100)
	}
	return d
}

func (h *masterHandler) allSegments(w http.ResponseWriter, r *http.Request) {
	st, ok := h.stat(w, r, "get all segments")
	if !ok {
		return
	}
	w.Header().Set("Content-Type", metricsContentType)
	for _, s := range st.Segments {
		fmt.Fprintf(w, "%s\n", s.Name)
	}
}

// segmentNamed finds the segment called name in st.
func segmentNamed(st pool.Stat, name string) (pool.Segment, bool) {
	for _, s := range st.Segments {
		if s.Name == name {
			return s, true
		}
	}
	return pool.Segment{}, false
}

func (h *masterHandler) querySegment(w http.ResponseWriter, r *http.Request) {
	st, ok := h.stat(w, r, "query segment")
	if !ok {
		return
	}
	name := rawQueryValue(r.URL.RawQuery, "segment")
	w.Header().Set("Content-Type", metricsContentType)
	s, ok := segmentNamed(st, name)
	if !ok {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("Failed to query segment"))
		return
	}
	fmt.Fprintf(w, "%s\nUsed(bytes): %d\nCapacity(bytes) : %d\n", name, s.UsedBytes, s.CapacityBytes)
}

// segmentStatusReply is the master's /api/v1/segments/status answer.
type segmentStatusReply struct {
	Success      bool   `json:"success"`
	Segment      string `json:"segment"`
	Status       int    `json:"status"`
	StatusName   string `json:"status_name"`
	ErrorCode    int    `json:"error_code"`
	ErrorMessage string `json:"error_message"`
}

func (h *masterHandler) segmentStatus(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("segment")
	if name == "" {
		writeJSON(w, http.StatusBadRequest, codedError{ErrorCode: int(pool.InvalidParams), ErrorMessage: "Missing segment query parameter"})
		return
	}
	st, err := h.s.Stat(r.Context())
	if err != nil {
		writeJSON(w, failureStatus(err), codedError{ErrorCode: int(pool.CodeOf(err)), ErrorMessage: err.Error()})
		return
	}
	if _, ok := segmentNamed(st, name); !ok {
		const notFound = pool.Code(-101)
		writeJSON(w, http.StatusNotFound, codedError{ErrorCode: int(notFound), ErrorMessage: codeName(notFound)})
		return
	}
	writeJSON(w, http.StatusOK, segmentStatusReply{Success: true, Segment: name, Status: 1, StatusName: "OK"})
}

// metrics exposes the pool's statistics through stats.NewPoolCollector in
// the text format, with the master's Content-Type.
func (h *masterHandler) metrics(w http.ResponseWriter, r *http.Request) {
	st, ok := h.stat(w, r, "read pool statistics")
	if !ok {
		return
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(stats.NewPoolCollector(func(context.Context) (pool.Stat, error) { return st, nil }, stats.PoolCollectorOptions{}))
	families, err := reg.Gather()
	if err != nil {
		http.Error(w, "Failed to read pool statistics: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", metricsContentType)
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return // the answer has begun: nothing better to do
		}
	}
}
