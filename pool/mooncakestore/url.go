package mooncakestore

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"

	"github.com/kvctl/kvctl/pool"
)

func init() {
	pool.Register("mooncake-store", func(ctx context.Context, u *url.URL) (pool.Store, error) {
		cfg, err := ParseURL(u, os.Getenv, os.ReadFile)
		if err != nil {
			return nil, err
		}
		return Open(ctx, cfg)
	})
}

// urlFields are the query options of a mooncake-store URL and the Config
// field each sets.
var urlFields = map[string]func(c *Config, v string) error{
	"hostname": func(c *Config, v string) error { c.LocalHostname = v; return nil },
	"metadata": func(c *Config, v string) error { c.MetadataServer = v; return nil },
	"protocol": func(c *Config, v string) error { c.Protocol = v; return nil },
	"device":   func(c *Config, v string) error { c.DeviceName = v; return nil },
	"admin":    func(c *Config, v string) error { c.Admin = v; return nil },
	"lib":      func(c *Config, v string) error { c.Library = v; return nil },
	"segment":  func(c *Config, v string) (err error) { c.GlobalSegmentSize, err = parseBytes(v); return err },
	"buffer":   func(c *Config, v string) (err error) { c.LocalBufferSize, err = parseBytes(v); return err },
	"staging":  func(c *Config, v string) (err error) { c.StagingBytes, err = parseBytes(v); return err },
	"config":   func(*Config, string) error { return nil }, // read first, in ParseURL
}

// ParseURL reads a mooncake-store URL into a Config:
//
//	mooncake-store://MASTER[:PORT]?metadata=URL&segment=SIZE&buffer=SIZE&protocol=tcp&device=NAME&hostname=HOST&admin=HOST:PORT&lib=PATH&staging=SIZE&config=PATH
//
// The Mooncake client JSON at config (else at $MOONCAKE_CONFIG_PATH, when
// set) is read first; the URL's master and options override its fields.
// The library is lib, else $KVCTL_MOONCAKE_LIB, else DefaultLibrary.
// getenv and readFile are os.Getenv and os.ReadFile outside tests. Errors
// wrap pool.ErrBadURL.
func ParseURL(u *url.URL, getenv func(string) string, readFile func(string) ([]byte, error)) (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("%w %q: %s", pool.ErrBadURL, u.Redacted(), fmt.Sprintf(format, args...))
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.Fragment != "" {
		return bad("want mooncake-store://MASTER[:PORT][?options]")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("query: %v", err)
	}
	cfg, err := baseConfig(q.Get("config"), getenv, readFile)
	if err != nil {
		return bad("%v", err)
	}
	if err := applyQuery(&cfg, q); err != nil {
		return bad("%v", err)
	}
	if u.Host != "" {
		cfg.MasterServerAddress = u.Host
	}
	if cfg.Library == "" {
		cfg.Library = getenv(LibraryEnv)
	}
	if cfg.Library == "" {
		cfg.Library = DefaultLibrary
	}
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return bad("%v (want mooncake-store://MASTER:PORT, or master_server_address in the client JSON)", err)
	}
	return cfg, nil
}

// baseConfig reads the client JSON at path, else at $MOONCAKE_CONFIG_PATH;
// with neither it is the zero Config.
func baseConfig(path string, getenv func(string) string, readFile func(string) ([]byte, error)) (Config, error) {
	if path == "" {
		path = getenv(ConfigEnv)
	}
	if path == "" {
		return Config{}, nil
	}
	data, err := readFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("reading the mooncake client JSON: %w", err)
	}
	cfg, err := ParseJSON(data)
	if err != nil {
		return Config{}, fmt.Errorf("reading the mooncake client JSON %q: %w", path, err)
	}
	return cfg, nil
}

// applyQuery sets the fields the URL's options name, in sorted order.
func applyQuery(cfg *Config, q url.Values) error {
	for _, k := range slices.Sorted(maps.Keys(q)) {
		set, ok := urlFields[k]
		if !ok {
			return fmt.Errorf("unknown option %q", k)
		}
		if len(q[k]) != 1 {
			return fmt.Errorf("option %q given %d times", k, len(q[k]))
		}
		if err := set(cfg, q[k][0]); err != nil {
			return fmt.Errorf("option %s: %w", k, err)
		}
	}
	return nil
}
