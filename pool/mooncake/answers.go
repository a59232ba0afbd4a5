package mooncake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

// Health is the master's answer to GET /health.
type Health struct {
	// Status is "ok" from a healthy master.
	Status string `json:"status"`
	// Role is "leader" or "standby" (0.3.11 and newer).
	Role string `json:"role,omitempty"`
	// HAState is the master's runtime state, e.g. "serving" (0.3.11 and newer).
	HAState string `json:"ha_state,omitempty"`
	// ServiceReady says whether the master serves requests; nil when the
	// answer does not say (plain "OK").
	ServiceReady *bool `json:"service_ready,omitempty"`
	// LeaderAddress is the leader a standby knows of, when it knows one.
	LeaderAddress string `json:"leader_address,omitempty"`
	// Legacy is true for the plain "OK" answer of 0.3.10 and older.
	Legacy bool `json:"-"`
}

// parseHealth reads a /health answer: a JSON object with a status field, or
// the plain text "OK".
func parseHealth(body []byte) (Health, error) {
	t := bytes.TrimSpace(body)
	if bytes.EqualFold(t, []byte("OK")) {
		return Health{Status: "ok", Legacy: true}, nil
	}
	if len(t) == 0 || t[0] != '{' {
		return Health{}, fmt.Errorf(`want a JSON object {"status":"ok",...} or plain OK, got %q`, snippet(t))
	}
	var h Health
	if err := json.Unmarshal(t, &h); err != nil {
		return Health{}, err
	}
	if h.Status == "" {
		return Health{}, errors.New(`no "status" field`)
	}
	return h, nil
}

// batchAnswer is the answer to GET /batch_query_keys.
type batchAnswer struct {
	Success *bool                 `json:"success"`
	Error   string                `json:"error"`
	Data    map[string]batchEntry `json:"data"`
}

// batchEntry is one key's result in a batchAnswer.
type batchEntry struct {
	OK    *bool   `json:"ok"`
	Error *string `json:"error"`
	// Values are the memory replicas' buffer descriptors, not interpreted.
	Values json.RawMessage `json:"values"`
}

// parseBatch reads a /batch_query_keys answer into its per-key entries.
func parseBatch(body []byte) (map[string]batchEntry, error) {
	var a batchAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, err
	}
	switch {
	case a.Success == nil:
		return nil, errors.New(`no "success" field`)
	case !*a.Success:
		return nil, fmt.Errorf("master refused the query: %q", a.Error)
	case a.Data == nil:
		return nil, errors.New(`no "data" object`)
	}
	for k, e := range a.Data {
		if e.OK == nil {
			return nil, fmt.Errorf(`key %q: no "ok" field`, k)
		}
		v := bytes.TrimSpace(e.Values)
		if len(v) > 0 && v[0] != '[' && !bytes.Equal(v, []byte("null")) {
			return nil, fmt.Errorf(`key %q: "values" is not a list`, k)
		}
	}
	return a.Data, nil
}

// entryStatus is a batchEntry as an Exist status: 1 present, 0 absent
// (OBJECT_NOT_FOUND), or the negative code the master named (RPCFail for a
// name kvctl does not know).
func entryStatus(e batchEntry) int {
	if *e.OK {
		return 1
	}
	if e.Error == nil {
		return int(pool.RPCFail)
	}
	c := codeFromName(*e.Error)
	if c == pool.ObjectNotFound {
		return 0
	}
	return int(c)
}

// segmentsAnswer is the answer to GET /get_segments_detail.
type segmentsAnswer struct {
	TotalSegments *uint64         `json:"total_segments"`
	Segments      []segmentDetail `json:"segments"`
}

// segmentDetail is one segment in a segmentsAnswer: the master's 12 fields,
// in its order.
type segmentDetail struct {
	SegmentName            string   `json:"segment_name"`
	SegmentID              string   `json:"segment_id"`
	ClientID               string   `json:"client_id"`
	BaseAddress            string   `json:"base_address"`
	SizeBytes              uint64   `json:"size_bytes"`
	SizeHuman              string   `json:"size_human"`
	TEEndpoint             string   `json:"te_endpoint"`
	Protocol               string   `json:"protocol"`
	Status                 string   `json:"status"`
	AllocatorUsedBytes     uint64   `json:"allocator_used_bytes"`
	AllocatorCapacityBytes uint64   `json:"allocator_capacity_bytes"`
	AllocatorUsagePercent  sciFloat `json:"allocator_usage_percent"`
}

// parseSegments reads a /get_segments_detail answer. A segment's capacity is
// its allocator capacity, or its size when the allocator reports none.
func parseSegments(body []byte) ([]pool.Segment, error) {
	var a segmentsAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, err
	}
	if a.TotalSegments == nil {
		return nil, errors.New(`no "total_segments" field`)
	}
	if *a.TotalSegments != uint64(len(a.Segments)) {
		return nil, fmt.Errorf("total_segments is %d but %d segments are listed", *a.TotalSegments, len(a.Segments))
	}
	out := make([]pool.Segment, 0, len(a.Segments))
	for i, d := range a.Segments {
		capacity := d.AllocatorCapacityBytes
		if capacity == 0 {
			capacity = d.SizeBytes
		}
		if capacity > math.MaxInt64 || d.AllocatorUsedBytes > math.MaxInt64 {
			return nil, fmt.Errorf("segment %d (%q): byte counts above 2^63", i, d.SegmentName)
		}
		out = append(out, pool.Segment{Name: d.SegmentName, CapacityBytes: int64(capacity), UsedBytes: int64(d.AllocatorUsedBytes)})
	}
	return out, nil
}

// refusal is the JSON body of an error answer; masters spell it either
// {"success":false,"error_code":-1011,"error_message":"..."} or
// {"success":false,"error":"..."}.
type refusal struct {
	ErrorCode    *int   `json:"error_code"`
	ErrorMessage string `json:"error_message"`
	Error        string `json:"error"`
}

// describeRefusal renders an error answer's body for a message.
func describeRefusal(body string) string {
	var r refusal
	if json.Unmarshal([]byte(body), &r) != nil {
		return strings.TrimSpace(body)
	}
	msg := r.ErrorMessage
	if msg == "" {
		msg = r.Error
	}
	if r.ErrorCode == nil {
		return msg
	}
	return fmt.Sprintf("%s (%d): %s", codeName(pool.Code(*r.ErrorCode)), *r.ErrorCode, msg)
}
