package server

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseUpstream(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "127.0.0.1:8001", want: "http://127.0.0.1:8001"},
		{in: "localhost:8001", want: "http://localhost:8001"},
		{in: " http://ctx-0:8001/ ", want: "http://ctx-0:8001"},
		{in: "https://ctx-0:443/prefix/", want: "https://ctx-0:443/prefix"},
		{in: "[::1]:8001", want: "http://[::1]:8001"},
		{in: "0:0/%00", want: "http://0:0/%00"}, // the path stays escaped, so the answer parses again
		{in: "h:1/a%20b/", want: "http://h:1/a%20b"},
		{in: "ctx-0", wantErr: "want HOST:PORT"},
		{in: "", wantErr: "want HOST:PORT"},
		{in: "ftp://ctx-0:21", wantErr: `scheme "ftp"`},
		{in: "http://ctx-0:8001?x=1", wantErr: "no user, query or fragment"},
		{in: "http://u:p@ctx-0:8001", wantErr: "no user, query or fragment"},
		{in: "http://ctx 0:8001", wantErr: `server URL "http://ctx 0:8001"`},
	}
	for _, tt := range tests {
		got, err := ParseUpstream(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseUpstream(%q) = %q, %v, want an error holding %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseUpstream(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseUpstream(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8001", "http://h:1/p/", "https://[::1]:443", "h", "://", "http://h:1?q", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseUpstream(s)
		if err != nil {
			return
		}
		again, err := ParseUpstream(got)
		if err != nil || again != got {
			t.Errorf("ParseUpstream(%q) = %q, %v; want ParseUpstream(%q) = itself", got, again, err, s)
		}
		if strings.HasSuffix(got, "/") {
			t.Errorf("ParseUpstream(%q) = %q, want no trailing slash", s, got)
		}
	})
}

func TestRouterPicks(t *testing.T) {
	urls := []string{"a", "b", "c"}
	tests := []struct {
		policy string
		hold   []bool // whether the i-th pick stays in flight
		want   []string
	}{
		{RouteRoundRobin, []bool{true, true, false, false, false}, []string{"a", "b", "c", "a", "b"}},
		// a and b stay busy: least-loaded keeps coming back to c
		{RouteLeastLoaded, []bool{true, true, false, false, false}, []string{"a", "b", "c", "c", "c"}},
		{RouteLeastLoaded, []bool{false, false, false, false}, []string{"a", "b", "c", "a"}},
	}
	for _, tt := range tests {
		r, err := newRouter(urls, tt.policy)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, hold := range tt.hold {
			url, release := r.pick()
			got = append(got, url)
			if !hold {
				release()
				release() // a second release changes nothing
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s picks (-want +got):\n%s", tt.policy, diff)
		}
	}
}

func TestNewRouterRefuses(t *testing.T) {
	if _, err := newRouter(nil, RouteRoundRobin); err == nil {
		t.Error("newRouter(nil) = nil error, want one")
	}
	if _, err := newRouter([]string{"a"}, "random"); err == nil || !strings.Contains(err.Error(), `"random"`) {
		t.Errorf("newRouter(random) = %v, want an error naming it", err)
	}
}
