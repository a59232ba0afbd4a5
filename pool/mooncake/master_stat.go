package mooncake

import (
	"context"
	"net/http"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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

func (h *masterHandler) metrics(w http.ResponseWriter, r *http.Request) {
	st, err := h.s.Stat(r.Context())
	if err != nil {
		http.Error(w, "Failed to read pool statistics: "+err.Error(), failureStatus(err))
		return
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(stats.NewPoolCollector(func(context.Context) (pool.Stat, error) { return st, nil }, stats.PoolCollectorOptions{}))
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}).ServeHTTP(w, r)
}
