package redis

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
)

// parsed is the part of a config the URL tests compare.
type parsed struct {
	Addrs       []string
	DB          int
	User, Pass  string
	TLS         bool
	ServerName  string
	SkipVerify  bool
	DialTimeout time.Duration
	Timeout     time.Duration
	RESP2       bool
	ClientName  string
	Pins        pinMode
}

func summarize(c config) parsed {
	p := parsed{
		Addrs: c.addrs, DB: c.opt.SelectDB, User: c.opt.Username, Pass: c.opt.Password,
		DialTimeout: c.opt.Dialer.Timeout, Timeout: c.opt.ConnWriteTimeout,
		RESP2: c.opt.AlwaysRESP2, ClientName: c.opt.ClientName, Pins: c.pins,
	}
	if c.opt.TLSConfig != nil {
		p.TLS, p.ServerName, p.SkipVerify = true, c.opt.TLSConfig.ServerName, c.opt.TLSConfig.InsecureSkipVerify
	}
	return p
}

func TestParseURL(t *testing.T) {
	def := func(p parsed) parsed {
		if p.DialTimeout == 0 {
			p.DialTimeout = DefaultDialTimeout
		}
		if p.ClientName == "" {
			p.ClientName = "kvctl"
		}
		return p
	}
	tests := []struct {
		raw  string
		want parsed
	}{
		{"redis://host:6380/2", parsed{Addrs: []string{"host:6380"}, DB: 2}},
		{"redis://host", parsed{Addrs: []string{"host:6379"}}},
		{"redis://", parsed{Addrs: []string{"localhost:6379"}}},
		{"redis://host/", parsed{Addrs: []string{"host:6379"}}},
		{"REDIS://Host:1", parsed{Addrs: []string{"Host:1"}}},
		{"valkey://u:p%40ss@h:7000/0", parsed{Addrs: []string{"h:7000"}, User: "u", Pass: "p@ss"}},
		{"redis://:secret@h", parsed{Addrs: []string{"h:6379"}, Pass: "secret"}},
		{"rediss://cache.example:6380", parsed{Addrs: []string{"cache.example:6380"}, TLS: true}},
		{"valkeys://h?skip_verify", parsed{Addrs: []string{"h:6379"}, TLS: true, SkipVerify: true}},
		{"rediss://h?skip_verify=false", parsed{Addrs: []string{"h:6379"}, TLS: true}},
		{"redis://h1:7000?addr=h2:7001&addr=h3", parsed{Addrs: []string{"h1:7000", "h2:7001", "h3:6379"}}},
		{"redis://[::1]:7000?addr=[::2]", parsed{Addrs: []string{"[::1]:7000", "[::2]:6379"}}},
		{"redis://h?db=4", parsed{Addrs: []string{"h:6379"}, DB: 4}},
		{"redis://h?dial_timeout=250ms&timeout=3s&protocol=2&client_name=job7&pins=volatile",
			parsed{Addrs: []string{"h:6379"}, DialTimeout: 250 * time.Millisecond, Timeout: 3 * time.Second, RESP2: true, ClientName: "job7", Pins: pinsVolatile}},
		{"redis://h?pins=none&protocol=3", parsed{Addrs: []string{"h:6379"}}},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.raw)
		if err != nil {
			t.Fatalf("url.Parse(%q) = %v", tt.raw, err)
		}
		c, err := parseURL(u)
		if err != nil {
			t.Errorf("parseURL(%q) = %v, want nil", tt.raw, err)
			continue
		}
		if diff := cmp.Diff(def(tt.want), summarize(c)); diff != "" {
			t.Errorf("parseURL(%q) diff (-want +got):\n%s", tt.raw, diff)
		}
		if !c.opt.DisableCache || c.readRetries != maxReadRetries {
			t.Errorf("parseURL(%q): DisableCache %v, readRetries %d, want true, %d", tt.raw, c.opt.DisableCache, c.readRetries, maxReadRetries)
		}
	}
}

func TestParseURLErrors(t *testing.T) {
	tests := []struct{ raw, wantIn string }{
		{"mem://x", "scheme"},
		{"redis:host", "want redis://host:port"},
		{"redis://h#frag", "fragment"},
		{"redis://h:0", "bad port"},
		{"redis://h:99999", "bad port"},
		{"redis://h/x", "database"},
		{"redis://h/-1", "database"},
		{"redis://h/1/2", "database"},
		{"redis://h/1?db=2", "both"},
		{"redis://h?db=x", "database"},
		{"redis://h?addr=h2:x", "addr"},
		{"redis://h?addr=", "addr"},
		{"redis://h?nope=1", `unknown parameter "nope"`},
		{"redis://h?db=1&db=2", "2 times"},
		{"redis://h?dial_timeout=5", "dial_timeout"},
		{"redis://h?timeout=-1s", "timeout"},
		{"redis://h?protocol=4", "protocol"},
		{"redis://h?skip_verify", "only for rediss"},
		{"rediss://h?skip_verify=maybe", "skip_verify"},
		{"redis://h?pins=hard", "pins"},
		{"redis://h?client_name=a%20b", "client_name"},
		{"redis://h?%zz", "query"},
		{"redis://user:hunter2@h/x", "database"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.raw)
		if err != nil {
			t.Fatalf("url.Parse(%q) = %v", tt.raw, err)
		}
		_, err = parseURL(u)
		if !errors.Is(err, pool.ErrBadURL) || !strings.Contains(err.Error(), tt.wantIn) {
			t.Errorf("parseURL(%q) = %v, want ErrBadURL mentioning %q", tt.raw, err, tt.wantIn)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("parseURL(%q) = %v, which shows the password", tt.raw, err)
		}
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"redis://h:6379/0", "rediss://u:p@h?skip_verify=1", "redis://h1:7000?addr=h2:7001&addr=[::1]:7",
		"valkey://h?db=3&dial_timeout=1s&pins=volatile", "redis://h:99999", "redis://h?%zz", "redis:opaque",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		c, err := parseURL(u)
		if err != nil {
			if !errors.Is(err, pool.ErrBadURL) {
				t.Fatalf("parseURL(%q) = %v, want ErrBadURL", raw, err)
			}
			return
		}
		if len(c.addrs) == 0 || c.opt.Dialer.Timeout <= 0 || c.opt.SelectDB < 0 {
			t.Fatalf("parseURL(%q) = addrs %q, dial timeout %v, db %d", raw, c.addrs, c.opt.Dialer.Timeout, c.opt.SelectDB)
		}
		for _, a := range c.addrs {
			if !strings.Contains(a, ":") {
				t.Fatalf("parseURL(%q) address %q has no port", raw, a)
			}
		}
	})
}
