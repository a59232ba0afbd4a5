package mooncake

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// scripted is a master whose answers a test writes by hand; health answers
// the 0.3.12 JSON unless the test sets another handler for it.
type scripted map[string]http.HandlerFunc

func (s scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := s[r.URL.Path]; ok {
		h(w, r)
		return
	}
	if r.URL.Path == "/health" {
		fmt.Fprint(w, `{"status":"ok","role":"leader","ha_state":"serving","service_ready":true}`)
		return
	}
	http.NotFound(w, r)
}

func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

const standby = `{"success":false,"error_code":-1011,"error_message":"service plane is not active"}`

func TestHealthAnswers(t *testing.T) {
	tests := []struct {
		name    string
		health  http.HandlerFunc
		want    Health // when wantErr is empty
		wantErr string
	}{
		{"0.3.10 plain OK", answer(200, "OK\n"), Health{Status: "ok", Legacy: true}, ""},
		{"json", answer(200, `{"status":"ok","role":"leader","ha_state":"serving","service_ready":true,"leader_address":"h:1"}`),
			Health{Status: "ok", Role: "leader", HAState: "serving", ServiceReady: new(true), LeaderAddress: "h:1"}, ""},
		{"standby", answer(200, `{"status":"ok","role":"standby","ha_state":"standby","service_ready":false}`),
			Health{}, `is not serving (role "standby", ha_state "standby"): pool unreachable`},
		{"unhealthy", answer(200, `{"status":"degraded"}`), Health{}, `GET /health: pool unreachable: status "degraded"`},
		{"html", answer(200, "<html>hi</html>"), Health{}, `GET /health: malformed answer: want a JSON object`},
		{"no status", answer(200, `{"role":"leader"}`), Health{}, `GET /health: malformed answer: no "status" field`},
		{"always 503", answer(503, standby), Health{},
			`GET /health: pool unreachable: master is not serving (standby?) (4 attempts): UNAVAILABLE_IN_CURRENT_MODE (-1011): service plane is not active`},
		{"404", answer(404, "not here"), Health{}, `GET /health: HTTP 404: not here`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(scripted{"/health": tt.health, "/metrics": answer(200, "master_key_count 0\n")})
			defer srv.Close()
			s, err := New(context.Background(), srv.URL, fastOptions)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), srv.Listener.Addr().String()) {
					t.Fatalf("New(%s) = %v, want an error naming the address and containing %q", srv.URL, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%s) = %v, want no error", srv.URL, err)
			}
			h, err := s.Health(context.Background())
			if err != nil || !equalHealth(h, tt.want) {
				t.Errorf("Health() = %+v, %v, want %+v", h, err, tt.want)
			}
		})
	}
}

// TestMetadataPortHint checks the hint for a mooncake:// URL that names
// Mooncake's HTTP metadata server, whose /health answers a plain OK
// (http_metadata_server.cpp) and which has no /metrics, instead of the
// master's admin API.
func TestMetadataPortHint(t *testing.T) {
	srv := httptest.NewServer(scripted{"/health": answer(200, "OK")})
	defer srv.Close()
	_, err := New(context.Background(), srv.URL, fastOptions)
	const want = "looks like Mooncake's HTTP metadata server (--http_metadata_server_port, 8080), not the master's admin API; the admin API is --metrics_port, 9003"
	if !errors.Is(err, pool.ErrBadURL) || !strings.Contains(err.Error(), want) {
		t.Errorf("New(%s) on a metadata server = %v, want a bad pool URL saying %q", srv.URL, err, want)
	}
}

func equalHealth(a, b Health) bool {
	ra, rb := a.ServiceReady, b.ServiceReady
	a.ServiceReady, b.ServiceReady = nil, nil
	return a == b && (ra == nil) == (rb == nil) && (ra == nil || *ra == *rb)
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = New(context.Background(), addr, fastOptions)
	if !errors.Is(err, pool.ErrUnreachable) || !strings.Contains(err.Error(), "mooncake master at "+addr) {
		t.Errorf("New(%s) with nothing listening = %v, want an error wrapping pool.ErrUnreachable naming %s", addr, err, addr)
	}
}

func TestStandbyThenServing(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(scripted{"/batch_query_keys": func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			answer(503, standby)(w, r)
			return
		}
		fmt.Fprint(w, `{"success":true,"data":{"a":{"ok":true,"values":[{"size_":5,"buffer_address_":1,"protocol_":"tcp","transport_endpoint_":"h:p"}]}}}`)
	}})
	defer srv.Close()
	s, err := New(context.Background(), srv.URL, fastOptions)
	if err != nil {
		t.Fatal(err)
	}
	status := []int{0}
	if err := s.Exist(context.Background(), []string{"a"}, status); err != nil || status[0] != 1 {
		t.Errorf("Exist(a) after two 503 answers = %v, %v, want [1], nil", status, err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("Exist(a) sent %d requests, want 3", n)
	}
}

func TestBatchAnswers(t *testing.T) {
	tests := []struct {
		name       string
		answer     http.HandlerFunc
		want       []int // statuses for keys a, b, c+d
		wantErr    string
		wantErrIs  error
		wantErrNot error
	}{
		{"codes", answer(200, `{"success":true,"data":{"a":{"ok":false,"error":"REPLICA_IS_NOT_READY"},"b":{"ok":false,"error":"SOMETHING_NEW"},"c+d":{"ok":false,"error":"OBJECT_NOT_FOUND","values":null}}}`),
			[]int{-703, int(pool.RPCFail), 0}, "", nil, nil},
		{"key left out", answer(200, `{"success":true,"data":{"a":{"ok":true}}}`),
			[]int{1, int(pool.RPCFail), int(pool.RPCFail)}, "", nil, nil},
		{"master reads raw", answer(200, `{"success":true,"data":{"a":{"ok":true,"values":[]},"b":{"ok":true,"values":[]},"c%2Bd":{"ok":false,"error":"OBJECT_NOT_FOUND"}}}`),
			[]int{1, 1, int(pool.InvalidParams)}, "", nil, nil},
		{"malformed json", answer(200, `{"success":true,"data":{"a":`), nil,
			"GET /batch_query_keys: malformed answer: unexpected end of JSON input", ErrMalformedAnswer, pool.ErrUnreachable},
		{"no ok", answer(200, `{"success":true,"data":{"a":{"values":[]}}}`), nil,
			`GET /batch_query_keys: malformed answer: key "a": no "ok" field`, ErrMalformedAnswer, nil},
		{"values not a list", answer(200, `{"success":true,"data":{"a":{"ok":true,"values":7}}}`), nil,
			`key "a": "values" is not a list`, ErrMalformedAnswer, nil},
		{"refused", answer(200, `{"success":false,"error":"boom"}`), nil,
			`malformed answer: master refused the query: "boom"`, ErrMalformedAnswer, nil},
		{"400", answer(400, `{"success":false,"error":"No keys provided. Use ?keys=key1,key2,..."}`), nil,
			`GET /batch_query_keys: HTTP 400: {"success":false,"error":"No keys provided.`, nil, pool.ErrUnreachable},
		{"standby", answer(503, `{"success":false,"error":"service plane is not active"}`), nil,
			`GET /batch_query_keys: pool unreachable: master is not serving (standby?) (4 attempts): service plane is not active`, pool.ErrUnreachable, nil},
		{"truncated", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			fmt.Fprint(w, `{"success":true,"data":{`)
		}, nil, "GET /batch_query_keys: pool unreachable: the answer broke off (4 attempts): reading answer: unexpected EOF", pool.ErrUnreachable, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(scripted{"/batch_query_keys": tt.answer})
			defer srv.Close()
			s, err := New(context.Background(), srv.URL, fastOptions)
			if err != nil {
				t.Fatal(err)
			}
			keys := []string{"a", "b", "c+d"}
			got := make([]int, 3)
			err = s.Exist(context.Background(), keys, got)
			if tt.wantErr == "" {
				if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("Exist(%q) = %v, %v, want %v, nil", keys, got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Exist(%q) = %v, want an error containing %q", keys, err, tt.wantErr)
			}
			if tt.wantErrIs != nil && !errors.Is(err, tt.wantErrIs) {
				t.Errorf("Exist(%q) = %v, want it to wrap %v", keys, err, tt.wantErrIs)
			}
			if tt.wantErrNot != nil && errors.Is(err, tt.wantErrNot) {
				t.Errorf("Exist(%q) = %v, want it not to wrap %v", keys, err, tt.wantErrNot)
			}
		})
	}
}

func TestSlowMaster(t *testing.T) {
	srv := httptest.NewServer(scripted{"/batch_query_keys": func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}})
	defer srv.Close()
	opts := fastOptions
	opts.Timeout = 50 * time.Millisecond
	s, err := New(context.Background(), srv.URL, opts)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Exist(context.Background(), []string{"a"}, []int{0})
	if !errors.Is(err, pool.ErrUnreachable) || !strings.Contains(err.Error(), "GET /batch_query_keys: pool unreachable: timed out: no answer within 50ms") {
		t.Errorf("Exist against a silent master = %v, want a timeout wrapping pool.ErrUnreachable", err)
	}
}

func TestCallerCancels(t *testing.T) {
	srv := httptest.NewServer(scripted{"/batch_query_keys": func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}})
	defer srv.Close()
	s, err := New(context.Background(), srv.URL, fastOptions)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	err = s.Exist(ctx, []string{"a"}, []int{0})
	if !errors.Is(err, context.Canceled) || errors.Is(err, pool.ErrUnreachable) {
		t.Errorf("Exist with a cancelled context = %v, want context.Canceled and not pool.ErrUnreachable", err)
	}
}

func TestListAnswers(t *testing.T) {
	tests := []struct {
		name    string
		answer  http.HandlerFunc
		want    string // keys joined by |
		wantErr string
	}{
		{"crlf and blanks", answer(200, "a\r\n\r\n\nb\n"), "a|b", ""},
		{"empty", answer(200, ""), "", ""},
		{"no final newline", answer(200, "a\nb"), "a", `GET /get_all_keys: malformed answer: listing ends without a newline after "b"`},
		{"truncated", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			fmt.Fprint(w, "a\nb\n")
		}, "a|b", "GET /get_all_keys: pool unreachable: the answer broke off: reading answer: unexpected EOF"},
		{"silent after a line", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "a\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, "a", "GET /get_all_keys: pool unreachable: timed out: no answer within 100ms"},
		{"standby", answer(503, standby), "", "GET /get_all_keys: pool unreachable: master is not serving"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(scripted{"/get_all_keys": tt.answer})
			defer srv.Close()
			opts := fastOptions
			opts.Timeout = 100 * time.Millisecond
			s, err := New(context.Background(), srv.URL, opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			err = s.List(context.Background(), "", func(k string) error { got = append(got, k); return nil })
			if strings.Join(got, "|") != tt.want {
				t.Errorf("List() keys = %q, want %q", strings.Join(got, "|"), tt.want)
			}
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("List() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestStatAnswers(t *testing.T) {
	okSegments := answer(200, `{"total_segments":0,"segments":[]}`)
	tests := []struct {
		name              string
		metrics, segments http.HandlerFunc
		wantErr           string
	}{
		{"bad metric line", answer(200, "master_key_count{a=\"b\" 3\n"), okSegments, `GET /metrics: malformed answer: text format parsing error in line 1: unexpected end of label value "b"`},
		{"NaN count", answer(200, "master_key_count NaN\n"), okSegments, "GET /metrics: malformed answer: master_key_count = NaN is not a count"},
		{"segments mismatch", answer(200, "master_key_count 1\n"), answer(200, `{"total_segments":2,"segments":[]}`),
			"GET /get_segments_detail: malformed answer: total_segments is 2 but 0 segments are listed"},
		{"segments 500", answer(200, "master_key_count 1\n"), answer(500, "boom"), "GET /get_segments_detail: HTTP 500: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(scripted{"/metrics": tt.metrics, "/get_segments_detail": tt.segments})
			defer srv.Close()
			s, err := New(context.Background(), srv.URL, fastOptions)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Stat(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Stat() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}
