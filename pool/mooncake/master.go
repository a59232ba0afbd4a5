package mooncake

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

// NewMasterHandler serves the read side of a Mooncake master's admin HTTP
// API over s, with the answer shapes of Mooncake 0.3.12 and main:
//
//	GET /health              {"status":"ok","role":"leader","ha_state":"serving","service_ready":true}
//	GET /get_all_keys        text/plain, one key per line, streamed (needs pool.Lister, else 501;
//	                         keys holding \r or \n are left out)
//	GET /batch_query_keys    ?keys=k1,k2: Exist, no lease; 400 when no key is given
//	GET /query_key           ?key=k: grants a lease, as the master does; 404 when absent
//	GET /get_segments_detail Stat().Segments
//	GET /metrics             Prometheus text: the master_* gauges and counters Stat fills,
//	                         per-segment gauges, and kvctl_puts_existing_total
//
// Sizes and leases: /batch_query_keys must not lease, so its present keys
// carry an empty descriptor list ("values":[], what the master answers for
// an object without a memory replica). /query_key asks Sizes when s is a
// pool.Sizer (which may lease, as Mooncake's size query does) and answers
// one descriptor with that size_; otherwise it asks
// ExistLeasing when s is a pool.LeasingExister (else Exist, which grants no
// lease) and answers an empty list. A descriptor's buffer_address_ is 0, its
// protocol_ "tcp" and its transport_endpoint_ the Host the request named.
// A store failure is a 503 when it wraps pool.ErrUnreachable, else a 500.
func NewMasterHandler(s pool.Store) http.Handler {
	h := &masterHandler{s: s}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", h.health)
	mux.HandleFunc("GET /get_all_keys", h.allKeys)
	mux.HandleFunc("GET /batch_query_keys", h.batchQuery)
	mux.HandleFunc("GET /query_key", h.queryKey)
	mux.HandleFunc("GET /get_segments_detail", h.segmentsDetail)
	mux.HandleFunc("GET /metrics", h.metrics)
	return mux
}

type masterHandler struct {
	s pool.Store
}

// descriptor is Mooncake's AllocatedBuffer::Descriptor as JSON.
type descriptor struct {
	Size              int64  `json:"size_"`
	BufferAddress     uint64 `json:"buffer_address_"`
	Protocol          string `json:"protocol_"`
	TransportEndpoint string `json:"transport_endpoint_"`
}

type batchResult struct {
	OK     bool          `json:"ok"`
	Error  string        `json:"error,omitempty"`
	Values *[]descriptor `json:"values,omitempty"`
}

type batchReply struct {
	Success bool                   `json:"success"`
	Data    map[string]batchResult `json:"data"`
}

type simpleError struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
}

type codedError struct {
	Success      bool   `json:"success"`
	ErrorCode    int    `json:"error_code"`
	ErrorMessage string `json:"error_message"`
}

func (h *masterHandler) health(w http.ResponseWriter, r *http.Request) {
	ready := true
	writeJSON(w, http.StatusOK, Health{Status: "ok", Role: "leader", HAState: "serving", ServiceReady: &ready})
}

func (h *masterHandler) batchQuery(w http.ResponseWriter, r *http.Request) {
	keys := splitKeys(r.URL.Query().Get("keys"))
	if len(keys) == 0 {
		writeJSON(w, http.StatusBadRequest, simpleError{Error: "No keys provided. Use ?keys=key1,key2,..."})
		return
	}
	status := make([]int, len(keys))
	if err := h.s.Exist(r.Context(), keys, status); err != nil {
		writeJSON(w, failureStatus(err), simpleError{Error: err.Error()})
		return
	}
	data := make(map[string]batchResult, len(keys))
	for i, k := range keys {
		switch {
		case status[i] == 1:
			data[k] = batchResult{OK: true, Values: &[]descriptor{}}
		case status[i] == 0:
			data[k] = batchResult{Error: pool.ObjectNotFound.String()}
		default:
			data[k] = batchResult{Error: codeName(pool.Code(status[i]))}
		}
	}
	writeJSON(w, http.StatusOK, batchReply{Success: true, Data: data})
}

// splitKeys splits the keys parameter on commas, dropping empty pieces.
func splitKeys(raw string) []string {
	var keys []string
	for k := range strings.SplitSeq(raw, ",") {
		if k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

func (h *masterHandler) queryKey(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	if key == "" {
		writeJSON(w, http.StatusBadRequest, codedError{ErrorCode: int(pool.InvalidParams), ErrorMessage: "No key provided. Use ?key=key1"})
		return
	}
	descs, code, err := h.probeLeasing(r, key)
	switch {
	case err != nil:
		writeJSON(w, failureStatus(err), codedError{ErrorCode: int(pool.CodeOf(err)), ErrorMessage: err.Error()})
	case code == pool.OK:
		writeJSON(w, http.StatusOK, struct {
			Success bool         `json:"success"`
			Data    []descriptor `json:"data"`
		}{true, descs})
	case code == pool.ObjectNotFound:
		writeJSON(w, http.StatusNotFound, codedError{ErrorCode: int(code), ErrorMessage: code.String()})
	default:
		writeJSON(w, http.StatusInternalServerError, codedError{ErrorCode: int(code), ErrorMessage: codeName(code)})
	}
}

// probeLeasing looks key up the way /query_key does (see NewMasterHandler)
// and returns its descriptors and OK, or the failure's code.
func (h *masterHandler) probeLeasing(r *http.Request, key string) ([]descriptor, pool.Code, error) {
	keys := []string{key}
	if sz, ok := h.s.(pool.Sizer); ok {
		n := []int64{0}
		if err := sz.Sizes(r.Context(), keys, n); err != nil {
			return nil, 0, err
		}
		if n[0] < 0 {
			return nil, pool.Code(n[0]), nil
		}
		return []descriptor{{Size: n[0], Protocol: "tcp", TransportEndpoint: r.Host}}, pool.OK, nil
	}
	status := []int{0}
	var err error
	if le, ok := h.s.(pool.LeasingExister); ok {
		err = le.ExistLeasing(r.Context(), keys, status)
	} else {
		err = h.s.Exist(r.Context(), keys, status)
	}
	switch {
	case err != nil:
		return nil, 0, err
	case status[0] == 1:
		return []descriptor{}, pool.OK, nil
	case status[0] == 0:
		return nil, pool.ObjectNotFound, nil
	}
	return nil, pool.Code(status[0]), nil
}

func (h *masterHandler) allKeys(w http.ResponseWriter, r *http.Request) {
	l, ok := h.s.(pool.Lister)
	if !ok {
		http.Error(w, "Failed to get all keys: this store cannot list its keys", http.StatusNotImplemented)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	err := l.List(r.Context(), "", func(k string) error {
		if strings.ContainsAny(k, "\r\n") {
			return nil
		}
		bw.WriteString(k)
		return bw.WriteByte('\n')
	})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		return
	}
	if cw.n == 0 {
		http.Error(w, "Failed to get all keys: "+err.Error(), failureStatus(err))
		return
	}
	panic(http.ErrAbortHandler) // break the stream off so the client sees it is incomplete
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// failureStatus is the HTTP status for a store failure.
func failureStatus(err error) int {
	if errors.Is(err, pool.ErrUnreachable) {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// writeJSON writes v as a JSON answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}
