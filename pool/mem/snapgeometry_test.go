package mem

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseURLTakesSnapshotGeometry(t *testing.T) {
	saved := Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10, MetadataOnly: true}
	path := filepath.Join(t.TempDir(), "pool.snap")
	if err := os.WriteFile(path, encodeWorkload(t, saved), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "none.snap")
	tests := []struct {
		name, query string
		want        Options
	}{
		{"no geometry", "snapshot=" + path, Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10, MetadataOnly: true, SnapshotPath: path}},
		{"capacity given", "capacity=2MiB&snapshot=" + path, Options{Capacity: 2 << 20, SnapshotPath: path}},
		{"segments given", "segments=2&snapshot=" + path, Options{Segments: 2, SnapshotPath: path}},
		{"no file yet", "snapshot=" + missing, Options{SnapshotPath: missing}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &url.URL{Scheme: "mem", RawQuery: tt.query}
			got, err := ParseURL(u)
			if err != nil {
				t.Fatalf("ParseURL(%s) = %v", u, err)
			}
			got.Now = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseURL(%s) mismatch (-want +got):\n%s", u, diff)
			}
		})
	}
}

// A snapshot= file that is not a snapshot leaves the URL well formed (no
// ErrBadURL, FuzzParseURL's rule); opening the pool names the file.
func TestParseURLSnapshotGeometryErrors(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"short.snap": "KVCTLMEM\x02", "other.snap": "NOTASNAPSHOT-AT-ALL-AT-ALL-AT-ALL"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		u := &url.URL{Scheme: "mem", RawQuery: "snapshot=" + path}
		opts, err := ParseURL(u)
		if err != nil {
			t.Fatalf("ParseURL(%s) = %v, want the URL taken as well formed (the file is read when it loads)", u, err)
		}
		if s, err := New(opts); err == nil || !strings.Contains(err.Error(), path) {
			if s != nil {
				s.Close()
			}
			t.Errorf("New(ParseURL(%s)) = %v, want an error naming the file", u, err)
		}
	}
}
