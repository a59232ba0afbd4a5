package mooncake

import (
	"bytes"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

func TestParseMetrics(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []sample
		wantErr string
	}{
		{"plain", "# HELP m h\n# TYPE m gauge\nm 3\n\n", []sample{{Name: "m", Value: 3}}, ""},
		{"labels and timestamp", "m{a=\"x\\\"y\",b=\"\\\\\\n\",} 1.5e3 1700000000000\r\n",
			[]sample{{Name: "m", Labels: map[string]string{"a": `x"y`, "b": "\\\n"}, Value: 1500}}, ""},
		{"spaces", "  m { a = \"1\" }\t+Inf\n", []sample{{Name: "m", Labels: map[string]string{"a": "1"}, Value: posInf}}, ""},
		{"empty labels, no final newline", "m{} 0", []sample{{Name: "m", Value: 0}}, ""},
		{"typed families by name", "# TYPE b counter\nb 2\n# TYPE a gauge\na 1\nc 3\n",
			[]sample{{Name: "a", Value: 1}, {Name: "b", Value: 2}, {Name: "c", Value: 3}}, ""},
		{"histogram left out", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\nm 1\n",
			[]sample{{Name: "m", Value: 1}}, ""},
		{"no value", "m\n", nil, "line 1: expected float as value"},
		{"bad value", "m x\n", nil, `line 1: expected float as value, got "x"`},
		{"bad timestamp", "m 1 2.5\n", nil, `line 1: expected integer as timestamp, got "2.5"`},
		{"three fields", "m 1 2 3\n", nil, "line 1: spurious string after timestamp"},
		{"bad name", "1m 1\n", nil, "line 1: invalid metric name"},
		{"unquoted label", "m{a=1} 1\n", nil, "line 1: expected '\"' at start of label value"},
		{"unterminated label", "m{a=\"1} 1\n", nil, "line 1: label value \"1} 1\" contains unescaped new-line"},
		{"bad escape", "m{a=\"\\t\"} 1\n", nil, `line 1: invalid escape sequence '\t'`},
		{"duplicate label", "m{a=\"1\",a=\"2\"} 1\n", nil, "line 1: duplicate label names"},
		{"colon label", "m{a:b=\"1\"} 1\n", nil, "line 1: expected '=' after label name"},
		{"second line", "m 1\nm{ 2\n", nil, "line 2: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMetrics([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("parseMetrics(%q) = %v, want an error containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseMetrics(%q) = %v, want no error", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseMetrics(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

var posInf = func() float64 { var z float64; return 1 / z }()

func TestStatFromMetrics(t *testing.T) {
	in := `# real master excerpt
master_key_count 12
master_allocated_bytes{tier="mem"} 1000
master_allocated_bytes{tier="ssd"} 24
master_total_capacity_bytes 3.3554432e+09
master_soft_pin_key_count 2
master_successful_evictions_total 3
master_attempted_evictions_total 4
master_evicted_key_count 5
master_evicted_size_bytes 320
master_value_size_bytes_bucket{le="+Inf"} 12
segment_allocated_bytes{segment="h:1"} 1000
segment_total_capacity_bytes{segment="h:1"} 3355443200
`
	samples, err := parseMetrics([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got, err := statFromMetrics(samples)
	if err != nil {
		t.Fatalf("statFromMetrics() = %v", err)
	}
	want := pool.Stat{Keys: 12, UsedBytes: 1024, CapacityBytes: 3355443200, SoftPinnedKeys: 2, EvictionAttempts: 4, EvictedKeys: 5, EvictedBytes: 320}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statFromMetrics() (-want +got):\n%s", diff)
	}
	segs, err := segmentsFromMetrics(samples)
	wantSegs := []pool.Segment{{Name: "h:1", UsedBytes: 1000, CapacityBytes: 3355443200}}
	if err != nil || !cmp.Equal(wantSegs, segs) {
		t.Errorf("segmentsFromMetrics() = %v, %v, want %v", segs, err, wantSegs)
	}
}

func TestParseSegments(t *testing.T) {
	real := `{"total_segments":1,"segments":[{"segment_name":"10.0.0.1:12345","segment_id":"u","client_id":"c","base_address":"0x7f00",` +
		`"size_bytes":3355443200,"size_human":"3.125 GiB","te_endpoint":"10.0.0.1:12345","protocol":"rdma","status":"OK",` +
		`"allocator_used_bytes":1048576,"allocator_capacity_bytes":0,"allocator_usage_percent":0.03}]}`
	got, err := parseSegments([]byte(real))
	want := []pool.Segment{{Name: "10.0.0.1:12345", CapacityBytes: 3355443200, UsedBytes: 1048576}}
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("parseSegments(real answer) = %v, %v, want %v", got, err, want)
	}
	for _, bad := range []string{
		`{"segments":[]}`,
		`{"total_segments":1,"segments":[]}`,
		`{"total_segments":1,"segments":[{"allocator_used_bytes":18446744073709551615}]}`,
		`{"total_segments":-1}`,
		`[]`,
	} {
		if _, err := parseSegments([]byte(bad)); err == nil {
			t.Errorf("parseSegments(%s) = nil error, want one", bad)
		}
	}
}

func TestEncodeKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"trtllm/m/w1r0/lg0/t32b64/00ff", "trtllm/m/w1r0/lg0/t32b64/00ff"},
		{"a:b@c~d!e$f'g(h)i*j?k", "a:b@c~d!e$f'g(h)i*j?k"},
		{"a b+c&d=e;f%g#h", "a%20b%2Bc%26d%3De%3Bf%25g%23h"},
		{"é\x00", "%C3%A9%00"},
	}
	for _, tt := range tests {
		if got := encodeKey(tt.in); got != tt.want {
			t.Errorf("encodeKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestURLOptions(t *testing.T) {
	for _, raw := range []string{
		"mooncake://",
		"mooncake://h:9003/path",
		"mooncake://u:p@h:9003",
		"mooncake://h?timeout=0s",
		"mooncake://h?timeout=soon",
		"mooncake://h?chunk=0",
		"mooncake://h?chunk=1&chunk=2",
		"mooncake://h?retries=-1",
		"mooncake://h?colour=red",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseURL(u); err == nil || !strings.Contains(err.Error(), "bad pool URL") {
			t.Errorf("ParseURL(%q) = %v, want an error wrapping pool.ErrBadURL", raw, err)
		}
	}
	base, err := baseURL("h")
	if err != nil || base.String() != "http://h:9003" {
		t.Errorf("baseURL(h) = %v, %v, want http://h:9003", base, err)
	}
}

// FuzzParseBatch checks that any answer either parses into entries whose
// statuses are 1, 0 or negative, or fails without panicking.
func FuzzParseBatch(f *testing.F) {
	for _, s := range []string{
		`{"success":true,"data":{"k1":{"ok":true,"values":[{"size_":1,"buffer_address_":2,"protocol_":"tcp","transport_endpoint_":"h:p"}]},"k2":{"ok":false,"error":"OBJECT_NOT_FOUND"}}}`,
		`{"success":false,"error":"No keys provided. Use ?keys=key1,key2,..."}`,
		`{"success":true,"data":{"a":{"ok":false,"error":null,"values":null}}}`,
		`{"success":true,"data":{}}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		entries, err := parseBatch(body)
		if err != nil {
			return
		}
		for k, e := range entries {
			if st := entryStatus(e); st > 1 {
				t.Errorf("entryStatus(%q) = %d, want 1, 0 or negative", k, st)
			}
		}
	})
}

// FuzzParseSegments checks that parsed segments never hold negative sizes.
func FuzzParseSegments(f *testing.F) {
	f.Add([]byte(`{"total_segments":1,"segments":[{"segment_name":"s","size_bytes":10,"allocator_used_bytes":1,"allocator_capacity_bytes":10,"allocator_usage_percent":10}]}`))
	f.Add([]byte(`{"total_segments":0,"segments":[]}`))
	f.Add([]byte(`{"total_segments":0}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		segs, err := parseSegments(body)
		if err != nil {
			return
		}
		for _, s := range segs {
			if s.CapacityBytes < 0 || s.UsedBytes < 0 {
				t.Errorf("parseSegments(%q) = segment %+v with a negative size", body, s)
			}
		}
	})
}

// FuzzParseMetrics checks that what parses can be rendered as counts or
// refused, and that names and label values survive quoting and parsing
// again.
func FuzzParseMetrics(f *testing.F) {
	f.Add([]byte("# TYPE master_key_count gauge\nmaster_key_count 3\nsegment_allocated_bytes{segment=\"a\\\"b\"} 1 17\n"))
	f.Add([]byte("m{a=\"\\\\\\n\",} NaN\n"))
	f.Add([]byte("m -Inf\n"))
	f.Add([]byte("{\"m.x\",\"a.b\"=\"1\"} 2\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		samples, err := parseMetrics(body)
		if err != nil {
			return
		}
		statFromMetrics(samples)
		segmentsFromMetrics(samples)
		for _, s := range samples {
			for k, v := range s.Labels {
				line := `{"` + escapeLabel(s.Name) + `","` + escapeLabel(k) + `"="` + escapeLabel(v) + `"} 1`
				again, err := parseMetrics([]byte(line))
				if err != nil || len(again) != 1 || again[0].Name != s.Name || again[0].Labels[k] != v {
					t.Errorf("parseMetrics(%q) = %v, %v, want %s with label %s=%q back", line, again, err, s.Name, k, v)
				}
			}
		}
	})
}

// escapeLabel escapes a label value for the text format.
func escapeLabel(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}

// FuzzParseHealth checks that a parsed health answer always has a status.
func FuzzParseHealth(f *testing.F) {
	for _, s := range []string{"OK", "ok\n", `{"status":"ok","role":"leader","ha_state":"serving","service_ready":true}`, `{"status":""}`, "<html>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		h, err := parseHealth(body)
		if err == nil && h.Status == "" {
			t.Errorf("parseHealth(%q) = %+v with no status and no error", body, h)
		}
	})
}

// FuzzScanKeys checks the /get_all_keys reader against a plain split.
func FuzzScanKeys(f *testing.F) {
	for _, s := range []string{"a\nb\n", "a\r\n\r\nb\n", "a\nb", "", "\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got []string
		err := scanKeys(iotestHalf(body), "", func(k string) error { got = append(got, k); return nil })
		var want []string
		lines := strings.Split(string(body), "\n")
		complete := lines[:len(lines)-1] // the last piece has no newline
		for _, l := range complete {
			if l = strings.TrimSuffix(l, "\r"); l != "" {
				want = append(want, l)
			}
		}
		if !cmp.Equal(want, got) {
			t.Errorf("scanKeys(%q) = %q, want %q", body, got, want)
		}
		if wantErr := lines[len(lines)-1] != ""; wantErr != (err != nil) {
			t.Errorf("scanKeys(%q) = %v, want an error: %v", body, err, wantErr)
		}
	})
}

// FuzzEncodeKey checks that an encoded key decodes back to itself as a
// query value, so a decoding master sees the key kvctl asked.
func FuzzEncodeKey(f *testing.F) {
	for _, s := range []string{"trtllm/m/w1r0/lg0/t32b64/00ff", "a b+c&d=e;f%g#h", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if k == "" || strings.Contains(k, ",") {
			return
		}
		q, err := url.ParseQuery("keys=" + encodeKey(k))
		if err != nil || q.Get("keys") != k {
			t.Errorf("url.ParseQuery(keys=encodeKey(%q)) = %q, %v, want %q", k, q.Get("keys"), err, k)
		}
	})
}

// iotestHalf returns a reader that reads at most a few bytes at a time.
func iotestHalf(b []byte) io.Reader { return &smallReader{r: bytes.NewReader(b)} }

type smallReader struct{ r *bytes.Reader }

func (s *smallReader) Read(p []byte) (int, error) {
	if len(p) > 3 {
		p = p[:3]
	}
	return s.r.Read(p)
}
