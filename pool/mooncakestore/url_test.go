package mooncakestore

import (
	"errors"
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
)

const clientJSON = `{
  "local_hostname": "node1",
  "metadata_server": "http://10.0.0.1:8080/metadata",
  "global_segment_size": "3GiB",
  "local_buffer_size": 1073741824,
  "protocol": "rdma",
  "device_name": "mlx5_0",
  "master_server_address": "10.0.0.1:50051",
  "model_key": "ignored"
}`

// fakeEnv is a getenv and a readFile over maps.
func fakeEnv(env, files map[string]string) (func(string) string, func(string) ([]byte, error)) {
	return func(k string) string { return env[k] }, func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
}

func TestParseURL(t *testing.T) {
	fromJSON := Config{
		LocalHostname: "node1", MetadataServer: "http://10.0.0.1:8080/metadata", GlobalSegmentSize: 3 << 30,
		LocalBufferSize: 1 << 30, Protocol: "rdma", DeviceName: "mlx5_0", MasterServerAddress: "10.0.0.1:50051",
		Library: DefaultLibrary, StagingBytes: DefaultStagingBytes,
	}
	tests := []struct {
		raw  string
		env  map[string]string
		want Config
	}{
		{"mooncake-store://127.0.0.1", nil, Config{
			MasterServerAddress: "127.0.0.1:50051", MetadataServer: DefaultMetadataServer, Protocol: DefaultProtocol,
			LocalBufferSize: DefaultLocalBufferSize, StagingBytes: DefaultStagingBytes, Library: DefaultLibrary,
		}},
		{"mooncake-store://m:7000?segment=1GiB&buffer=32MiB&hostname=127.0.0.1&metadata=P2PHANDSHAKE&protocol=tcp&admin=m:9003&lib=/opt/lib.so&staging=8MiB&device=", nil, Config{
			MasterServerAddress: "m:7000", GlobalSegmentSize: 1 << 30, LocalBufferSize: 32 << 20, LocalHostname: "127.0.0.1",
			MetadataServer: "P2PHANDSHAKE", Protocol: "tcp", Admin: "m:9003", Library: "/opt/lib.so", StagingBytes: 8 << 20,
		}},
		{"mooncake-store:?config=/etc/mc.json", nil, fromJSON},
		{"mooncake-store:", map[string]string{"MOONCAKE_CONFIG_PATH": "/etc/mc.json"}, fromJSON},
		{"mooncake-store://other:1?config=/etc/mc.json&protocol=tcp", nil, func() Config {
			c := fromJSON
			c.MasterServerAddress, c.Protocol = "other:1", "tcp"
			return c
		}()},
		{"mooncake-store://m", map[string]string{LibraryEnv: "/env/lib.so"}, Config{
			MasterServerAddress: "m:50051", MetadataServer: DefaultMetadataServer, Protocol: DefaultProtocol,
			LocalBufferSize: DefaultLocalBufferSize, StagingBytes: DefaultStagingBytes, Library: "/env/lib.so",
		}},
	}
	for _, tt := range tests {
		getenv, readFile := fakeEnv(tt.env, map[string]string{"/etc/mc.json": clientJSON})
		got, err := ParseURL(mustURL(t, tt.raw), getenv, readFile)
		if err != nil {
			t.Errorf("ParseURL(%q) = %v, want nil", tt.raw, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseURL(%q) (-want +got):\n%s", tt.raw, diff)
		}
	}
}

func TestParseURLRefuses(t *testing.T) {
	tests := []struct{ raw, mention string }{
		{"mooncake-store:", "no master_server_address"},
		{"mooncake-store://m?colour=red", `unknown option "colour"`},
		{"mooncake-store://m?segment=1&segment=2", `option "segment" given 2 times`},
		{"mooncake-store://m?segment=lots", "option segment"},
		{"mooncake-store://m?segment=1GB", "option segment"},
		{"mooncake-store://m/path", "want mooncake-store://MASTER"},
		{"mooncake-store://u@m", "want mooncake-store://MASTER"},
		{"mooncake-store:?config=/missing.json", "reading the mooncake client JSON"},
		{"mooncake-store:?config=/bad.json", `client JSON "/bad.json": field global_segment_size: want a byte count`},
	}
	getenv, readFile := fakeEnv(nil, map[string]string{"/bad.json": `{"global_segment_size": true}`})
	for _, tt := range tests {
		_, err := ParseURL(mustURL(t, tt.raw), getenv, readFile)
		if !errors.Is(err, pool.ErrBadURL) || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("ParseURL(%q) = %v, want an error wrapping pool.ErrBadURL that mentions %q", tt.raw, err, tt.mention)
		}
	}
}

func TestParseJSONRefuses(t *testing.T) {
	tests := []struct{ in, mention string }{
		{`{"protocol": 5}`, "field protocol: want a string, got 5"},
		{`{"master_server_address": ["m:1"]}`, "field master_server_address: want a string"},
		{`{"global_segment_size": "3GB"}`, `field global_segment_size: size "3GB": decimal unit`},
		{`{"local_buffer_size": 1.5}`, "field local_buffer_size: 1.5 is not a whole number of bytes"},
		{`{"local_buffer_size": -1}`, "field local_buffer_size: size -1 is negative"},
		{`[1]`, "not a JSON object"},
		{`{} {}`, "more data after the object"},
		{``, "not a JSON object"},
	}
	for _, tt := range tests {
		_, err := ParseJSON([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("ParseJSON(%s) = %v, want an error that mentions %q", tt.in, err, tt.mention)
		}
	}
}

func TestParseJSONNullIsUnset(t *testing.T) {
	got, err := ParseJSON([]byte(`{"protocol": null, "global_segment_size": null, "master_server_address": "m:1"}`))
	if want := (Config{MasterServerAddress: "m:1"}); err != nil || got != want {
		t.Errorf("ParseJSON(nulls) = %+v, %v; want %+v, nil", got, err, want)
	}
}

func mustURL(t testing.TB, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("url.Parse(%q) = %v", raw, err)
	}
	return u
}

// FuzzParseURL checks that no URL makes the parser panic and that what it
// accepts is a configuration Open can take.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"mooncake-store://127.0.0.1:50051?segment=1GiB&admin=127.0.0.1:9003",
		"mooncake-store:?config=/etc/mc.json", "mooncake-store://m?staging=0&buffer=%00", "mooncake-store://[::1]:1"} {
		f.Add(s)
	}
	getenv, readFile := fakeEnv(nil, map[string]string{"/etc/mc.json": clientJSON})
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		cfg, err := ParseURL(u, getenv, readFile)
		if err != nil {
			if !errors.Is(err, pool.ErrBadURL) {
				t.Fatalf("ParseURL(%q) = %v, want an error wrapping pool.ErrBadURL", raw, err)
			}
			return
		}
		if err := cfg.check(); err != nil || cfg.StagingBytes <= 0 || cfg.Library == "" {
			t.Fatalf("ParseURL(%q) = %+v, which Open cannot take (%v)", raw, cfg, err)
		}
	})
}

// FuzzParseJSON checks that no client JSON makes the parser panic and that
// sizes it accepts are not negative.
func FuzzParseJSON(f *testing.F) {
	f.Add(clientJSON)
	f.Add(`{"global_segment_size": -1}`)
	f.Add(`{"local_buffer_size": "1.5GiB"}`)
	f.Fuzz(func(t *testing.T, data string) {
		cfg, err := ParseJSON([]byte(data))
		if err == nil && (cfg.GlobalSegmentSize < 0 || cfg.LocalBufferSize < 0) {
			t.Fatalf("ParseJSON(%q) = %+v, want no negative sizes", data, cfg)
		}
	})
}
