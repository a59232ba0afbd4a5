package mooncake

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// fetch GETs path from srv and returns the status and body.
func fetch(t *testing.T, srv *httptest.Server, method, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp.StatusCode, string(body)
}

func TestMasterHandlerAnswers(t *testing.T) {
	m := newMem(t, map[string][]byte{"a": []byte("hello"), "b/c": make([]byte, 100), "x y+z": []byte("v")})
	srv := httptest.NewServer(NewMasterHandler(m))
	defer srv.Close()
	const absent = `{"ok":false,"error":"OBJECT_NOT_FOUND","values":null,"disk_values":null,"local_disk_values":null,"nof_values":null}`
	present := func(key string) string {
		return `{"ok":true,"error":null,"values":[` + located(t, m, key) + `],"disk_values":null,"local_disk_values":null,"nof_values":null}`
	}
	segment := func(i int) string {
		return fmt.Sprintf(`{"segment_name":"mem-%d","segment_id":"0-%d","client_id":"0-1","base_address":"0x0","size_bytes":524288,`+
			`"size_human":"0.000488281 GiB","te_endpoint":"mem-%d","protocol":"tcp","status":"OK","allocator_used_bytes":%s,`+
			`"allocator_capacity_bytes":524288,"allocator_usage_percent":%s}`, i, i+1, i, segUsed(t, m, i), segPct(t, m, i))
	}
	tests := []struct {
		name, method, path string
		wantStatus         int
		wantBody           string
	}{
		{"health", "GET", "/health", 200,
			`{"status":"ok","role":"leader","ha_state":"serving","service_ready":true,"leader_address":null,"view_version":null}`},
		{"batch present and absent", "GET", "/batch_query_keys?keys=a,nope", 200,
			`{"success":true,"data":{"a":` + present("a") + `,"nope":` + absent + `}}`},
		{"batch decodes keys", "GET", "/batch_query_keys?keys=b/c," + url.QueryEscape("x y+z"), 200,
			`{"success":true,"data":{"b/c":` + present("b/c") + `,"x y+z":` + present("x y+z") + `}}`},
		{"batch no keys", "GET", "/batch_query_keys", 400,
			`{"success":false,"error":"No keys provided. Use ?keys=key1,key2,..."}`},
		{"batch keeps empty pieces", "GET", "/batch_query_keys?keys=,a,", 200,
			`{"success":true,"data":{"":` + absent + `,"a":` + present("a") + `}}`},
		{"query present", "GET", "/query_key?key=b/c", 200,
			`{"success":true,"data":[` + located(t, m, "b/c") + `]}`},
		{"query absent", "GET", "/query_key?key=nope", 404,
			`{"success":false,"error_code":-704,"error_message":"OBJECT_NOT_FOUND"}`},
		{"query reads its key raw", "GET", "/query_key?key=x+y%2Bz", 404,
			`{"success":false,"error_code":-704,"error_message":"OBJECT_NOT_FOUND"}`},
		{"query no key", "GET", "/query_key", 404,
			`{"success":false,"error_code":-704,"error_message":"OBJECT_NOT_FOUND"}`},
		{"all keys", "GET", "/get_all_keys", 200, "a\nb/c\nx y+z\n"},
		{"segments", "GET", "/get_segments_detail", 200, `{"total_segments":2,"segments":[` + segment(0) + `,` + segment(1) + `]}`},
		{"post refused", "POST", "/health", 404, "404 Not Found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := fetch(t, srv, tt.method, tt.path)
			if tt.path == "/get_all_keys" {
				body = sortLines(body)
			}
			if status != tt.wantStatus || body != tt.wantBody {
				t.Errorf("%s %s = %d %s, want %d %s", tt.method, tt.path, status, body, tt.wantStatus, tt.wantBody)
			}
		})
	}
	// /query_key leased b/c (a lease forbids removal without force);
	// /batch_query_keys leased nothing.
	res := make([]pool.Code, 3)
	if err := m.Remove(context.Background(), []string{"a", "b/c", "x y+z"}, false, res); err != nil {
		t.Fatal(err)
	}
	if want := []pool.Code{pool.OK, pool.ObjectHasLease, pool.OK}; !slices.Equal(want, res) {
		t.Errorf("Remove(a, b/c, x y+z) after /batch_query_keys and /query_key?key=b/c = %v, want %v", res, want)
	}
}

// located is key's descriptor in m, as the handler spells it.
func located(t *testing.T, m pool.Locator, key string) string {
	t.Helper()
	l := make([]pool.Location, 1)
	if err := m.Locate(context.Background(), []string{key}, l); err != nil || l[0].Code != pool.OK {
		t.Fatalf("Locate(%q) = %+v, %v, want it located", key, l[0], err)
	}
	return fmt.Sprintf(`{"size_":%d,"buffer_address_":%d,"protocol_":"tcp","transport_endpoint_":%q}`, l[0].Size, l[0].Offset, l[0].Segment)
}

// sortLines sorts the lines of a newline-terminated listing.
func sortLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

func TestMasterHandlerMetrics(t *testing.T) {
	f := newFakeStore("a", "b")
	f.stat = pool.Stat{UsedBytes: 128, CapacityBytes: 4096, EvictedKeys: 2, EvictionAttempts: 5,
		Segments: []pool.Segment{{Name: "s\\0", CapacityBytes: 4096, UsedBytes: 128}}}
	srv := httptest.NewServer(NewMasterHandler(f))
	defer srv.Close()
	status, body := fetch(t, srv, "GET", "/metrics")
	if status != 200 {
		t.Fatalf("GET /metrics = %d %s, want 200", status, body)
	}
	for _, want := range []string{
		"# TYPE master_key_count gauge\nmaster_key_count 2\n",
		"\nmaster_allocated_bytes 128\n",
		"\nmaster_total_capacity_bytes 4096\n",
		"# TYPE master_evicted_key_count counter\nmaster_evicted_key_count 2\n",
		"\nmaster_attempted_evictions_total 5\n",
		"\nmaster_soft_pin_key_count 0\n",
		"\nsegment_allocated_bytes{segment=\"s\\\\0\"} 128\n",
		"\nsegment_total_capacity_bytes{segment=\"s\\\\0\"} 4096\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /metrics = %q, want it to contain %q", body, want)
		}
	}
	samples, err := parseMetrics([]byte(body))
	if err != nil {
		t.Fatalf("parseMetrics(GET /metrics) = %v, want no error", err)
	}
	want := f.stat
	want.Keys, want.Segments = 2, nil
	if got, err := statFromMetrics(samples); err != nil || !cmp.Equal(got, want) {
		t.Errorf("statFromMetrics(GET /metrics) = %+v, %v, want %+v", got, err, want)
	}
	if n := f.statCount(); n != 1 {
		t.Errorf("GET /metrics called Stat %d times, want 1", n)
	}
}

func TestMasterHandlerFailures(t *testing.T) {
	unreachable := fmt.Errorf("redis at h:1: %w", pool.ErrUnreachable)
	tests := []struct {
		name       string
		store      pool.Store
		path       string
		wantStatus int
		wantBody   string
	}{
		{"exist unreachable", &fakeStore{existErr: unreachable}, "/batch_query_keys?keys=a", 503,
			`{"success":false,"error":"redis at h:1: pool unreachable"}`},
		{"query unreachable", &fakeStore{existErr: unreachable}, "/query_key?key=a", 503,
			`{"success":false,"error_code":-900,"error_message":"redis at h:1: pool unreachable"}`},
		{"exist coded failure", &fakeStore{existErr: &pool.Error{Code: pool.RPCTimeout, Op: "exist"}}, "/query_key?key=a", 500,
			`{"success":false,"error_code":-901,"error_message":"exist: RPC_TIMEOUT (-901)"}`},
		{"no lister", noListStore{newFakeStore("a")}, "/get_all_keys", 501,
			"Failed to get all keys: this store cannot list its keys\n"},
		{"list fails first", &fakeStore{keys: map[string][]byte{"a": nil}, listErr: unreachable}, "/get_all_keys", 503,
			"Failed to get all keys: redis at h:1: pool unreachable\n"},
		{"stat fails", &fakeStore{statErr: unreachable}, "/metrics", 503,
			"Failed to read pool statistics: redis at h:1: pool unreachable\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(NewMasterHandler(tt.store))
			defer srv.Close()
			status, body := fetch(t, srv, "GET", tt.path)
			if status != tt.wantStatus || body != tt.wantBody {
				t.Errorf("GET %s = %d %q, want %d %q", tt.path, status, body, tt.wantStatus, tt.wantBody)
			}
		})
	}
}

func TestMasterHandlerListBreaksOff(t *testing.T) {
	keys := make([]string, 20000)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%06d", i)
	}
	f := newFakeStore(keys...)
	f.listErr, f.listOK = fmt.Errorf("lost the pool: %w", pool.ErrUnreachable), 15000
	srv := httptest.NewServer(NewMasterHandler(f))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/get_all_keys")
	if err != nil {
		t.Fatalf("GET /get_all_keys: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Errorf("GET /get_all_keys with a List failing after 15000 keys = %d bytes and no error, want a broken-off body", len(body))
	}
}
