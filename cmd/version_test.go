package cmd

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadVCS(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name     string
		commit   string // set at link time
		settings []debug.BuildSetting
		want     versionInfo
	}{
		{"no vcs", "", nil, versionInfo{}},
		{"clean", "", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}},
			versionInfo{Commit: "abc", Modified: &no}},
		{"modified", "", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}},
			versionInfo{Commit: "abc", Modified: &yes}},
		{"link-time commit wins", "def", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}},
			versionInfo{Commit: "def"}},
	}
	for _, tt := range tests {
		got := versionInfo{Commit: tt.commit}
		readVCS(&got, tt.settings)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: readVCS(%v) mismatch (-want +got):\n%s", tt.name, tt.settings, diff)
		}
	}
}

func TestWriteVersion(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		info versionInfo
		want string
	}{
		{versionInfo{Version: "devel", Commit: "unknown", GoVersion: "go1.26"},
			"kvctl devel\ncommit unknown (built without version control information)\ngo1.26\n"},
		{versionInfo{Version: "v1.0.0", Commit: "abc", GoVersion: "go1.26", Modified: &no},
			"kvctl v1.0.0\ncommit abc\ngo1.26\n"},
		{versionInfo{Version: "v1.0.0", Commit: "abc", GoVersion: "go1.26", Modified: &yes},
			"kvctl v1.0.0\ncommit abc (modified)\ngo1.26\n"},
		{versionInfo{Version: "v1.0.0", Commit: "abc", GoVersion: "go1.26"},
			"kvctl v1.0.0\ncommit abc\ngo1.26\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := writeVersion(&b, tt.info); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tt.want {
			t.Errorf("writeVersion(%+v) = %q, want %q", tt.info, got, tt.want)
		}
	}
}
