package mooncake

import (
	"errors"
	"net/http"

	"github.com/kvctl/kvctl/pool"
)

// NewMasterHandler serves the read side of a Mooncake master's admin HTTP
// API over s, answering as mooncake_master 0.3.12.post1 (3b5a5941) does,
// byte for byte where the pool's state allows (the recorded exchanges in
// testdata/mooncake-real/mooncake-admin-answers.json are its test):
//
//	GET /health                 the leader's answer, with leader_address and view_version null
//	GET /leader, /role, /ha_status, /kv_events/status   a leader with no HA and no KV events
//	GET /get_all_keys           text/plain, one key per line, streamed (needs pool.Lister,
//	                            else 501; keys holding \r or \n are left out)
//	GET /batch_query_keys       ?keys=k1,k2 (decoded, split on every comma, empty pieces kept):
//	                            per key ok, error and the replica lists, no lease
//	GET /query_key              ?key=k (read raw, not decoded): grants a lease; 404 when absent
//	GET /get_all_segments       text/plain, one segment name per line
//	GET /get_segments_detail    Stat().Segments with all 12 fields
//	GET /query_segment          ?segment=name (raw): used and capacity bytes
//	GET /api/v1/segments/status ?segment=name (decoded): OK, or 404 SEGMENT_NOT_FOUND
//	GET /metrics                Prometheus text from stats.NewPoolCollector
//
// Other paths and other methods get the master's 404 "404 Not Found";
// /metrics/summary, whose request rates kvctl does not keep, is one of them.
//
// Descriptors: a present key's "values" holds one memory replica
// descriptor when s is a pool.Locator: size_ its size, buffer_address_ its
// offset in its segment (kvctl's segments are mapped at no address, so
// each segment's base_address is 0x0) and transport_endpoint_ the
// segment's name (a real master writes its transfer engine's endpoint
// there, te_endpoint). Without a Locator the list is empty. /query_key
// leases through pool.LeasingExister (else pool.Sizer, else a plain
// Exist). A store failure is a 503 when it wraps pool.ErrUnreachable, else
// a 500.
func NewMasterHandler(s pool.Store) http.Handler {
	h := &masterHandler{s: s}
	h.routes = map[string]http.HandlerFunc{
		"/health":                 h.health,
		"/leader":                 h.leader,
		"/role":                   textAnswer("leader"),
		"/ha_status":              textAnswer("serving"),
		"/kv_events/status":       h.kvEvents,
		"/get_all_keys":           h.allKeys,
		"/batch_query_keys":       h.batchQuery,
		"/query_key":              h.queryKey,
		"/get_all_segments":       h.allSegments,
		"/get_segments_detail":    h.segmentsDetail,
		"/query_segment":          h.querySegment,
		"/api/v1/segments/status": h.segmentStatus,
		"/metrics":                h.metrics,
	}
	return h
}

type masterHandler struct {
	s      pool.Store
	routes map[string]http.HandlerFunc
}

// ServeHTTP routes GET requests by exact path, as the master does.
func (h *masterHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route, ok := h.routes[r.URL.Path]
	if !ok || r.Method != http.MethodGet {
		notFound(w)
		return
	}
	route(w, r)
}

// notFound is the master's answer to an unknown path or method: no
// Content-Type, the body "404 Not Found".
func notFound(w http.ResponseWriter) {
	w.Header()["Content-Type"] = nil
	w.WriteHeader(http.StatusNotFound)
	w.Write([]byte("404 Not Found"))
}

// textAnswer answers a fixed text/plain body.
func textAnswer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte(body))
	}
}

// healthReply is the master's /health answer.
type healthReply struct {
	Status        string  `json:"status"`
	Role          string  `json:"role"`
	HAState       string  `json:"ha_state"`
	ServiceReady  bool    `json:"service_ready"`
	LeaderAddress *string `json:"leader_address"`
	ViewVersion   *uint64 `json:"view_version"`
}

func (h *masterHandler) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, healthReply{Status: "ok", Role: "leader", HAState: "serving", ServiceReady: true})
}

func (h *masterHandler) leader(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Present       bool    `json:"present"`
		LeaderAddress *string `json:"leader_address"`
		ViewVersion   *uint64 `json:"view_version"`
	}{})
}

func (h *masterHandler) kvEvents(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Enabled             bool   `json:"enabled"`
		PublishedBatches    uint64 `json:"published_batches"`
		PublishedEvents     uint64 `json:"published_events"`
		DroppedEvents       uint64 `json:"dropped_events"`
		SkippedUnparsedKeys uint64 `json:"skipped_unparsed_keys"`
	}{})
}

// simpleError is the master's {"success":false,"error":...} answer.
type simpleError struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
}

// codedError is the master's {"success":false,"error_code":...} answer.
type codedError struct {
	Success      bool   `json:"success"`
	ErrorCode    int    `json:"error_code"`
	ErrorMessage string `json:"error_message"`
}

// failureStatus is the HTTP status for a store failure.
func failureStatus(err error) int {
	if errors.Is(err, pool.ErrUnreachable) {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
