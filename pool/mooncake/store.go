// Package mooncake reaches a live Mooncake master, read-only, through its
// admin HTTP API (port 9003 by default), and serves that same API over any
// pool.Store (NewMasterHandler).
//
// The client, opened with the URL mooncake://host:9003, uses only endpoints
// that grant no lease, so probing never changes what the master evicts:
//
//   - Exist: GET /batch_query_keys?keys=k1,k2,... in chunks (no lease since
//     Mooncake 0.3.12; 0.3.9 to 0.3.11 granted one). Never /query_key.
//   - List (pool.Lister): GET /get_all_keys, streamed line by line.
//   - Stat: GET /metrics (Prometheus text, read with expfmt; the metric
//     names are stats.NewPoolCollector's) and GET /get_segments_detail.
//     A real master's puts of existing keys are inferred from its PutStart
//     failures, marked approximate, and segments mounted on a master with
//     no keys add a warning (Stat.Warnings).
//   - Open checks GET /health (JSON from 0.3.11, plain "OK" before). A
//     plain "OK" with no /metrics is Mooncake's HTTP metadata server, not
//     the admin API: refused, naming --metrics_port, 9003.
//
// The admin API carries no object bytes and accepts no writes: Get writes
// TransferFail for every key and fails with an error wrapping
// errors.ErrUnsupported; Put and Remove fail with an error wrapping
// pool.ErrReadOnly.
//
// URL options (all optional):
//
//	timeout=10s   limit for one request (for /get_all_keys: the longest
//	              silence while streaming)
//	chunk=256     keys per /batch_query_keys request
//	parallel=4    /batch_query_keys requests in flight at once
//	retries=3     extra attempts after a 503 (standby master) or a
//	              transient connection error
//	backoff=100ms first pause between attempts; it doubles, up to 2s
//
// Keys are sent percent-encoded except for the characters that read the
// same encoded or not (letters, digits, "-._~!$'()*:@/"), so kvctl's keys
// reach masters that decode the query (main) and masters that read it raw
// (0.3.12 and older) alike; a key with other characters is sent encoded
// and an older master looks it up under its encoded spelling (a miss). A
// key containing "," cannot be asked, since the master splits the list on
// commas: its status is InvalidParams, as is an empty key's.
package mooncake

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// DefaultPort is the master's admin HTTP port.
const DefaultPort = "9003"

// Options configure a Store. Zero fields take the documented defaults.
type Options struct {
	// Timeout limits one request (default 10s). While streaming
	// /get_all_keys it limits the silence between two reads instead.
	Timeout time.Duration
	// Chunk is the number of keys per /batch_query_keys request (default 256).
	Chunk int
	// Parallel is how many /batch_query_keys requests are in flight at once
	// (default 4).
	Parallel int
	// Retries is the number of extra attempts after a 503 answer or a
	// transient connection error (default 3; negative means none).
	Retries int
	// Backoff is the first pause between attempts (default 100ms); it
	// doubles after each attempt, up to 2s.
	Backoff time.Duration
	// HTTPClient sends the requests; nil means a client of the package's own.
	HTTPClient *http.Client
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Chunk <= 0 {
		o.Chunk = 256
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.Retries == 0 {
		o.Retries = 3
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = 100 * time.Millisecond
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			MaxIdleConnsPerHost: 16,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	return o
}

// Store is a live Mooncake master seen read-only through its admin HTTP API.
// It is safe for concurrent use.
type Store struct {
	c    *client
	opts Options
}

var (
	_ pool.Store    = (*Store)(nil)
	_ pool.Lister   = (*Store)(nil)
	_ pool.ReadOnly = (*Store)(nil)
)

func init() {
	pool.Register("mooncake", openURL)
}

// New connects to the master whose admin API listens at addr ("host:port",
// or "host" for port 9003, or an http:// or https:// base URL) and checks its
// health. An unreachable master, or one that is not serving (a standby),
// fails with an error wrapping pool.ErrUnreachable that names the address.
func New(ctx context.Context, addr string, opts Options) (*Store, error) {
	base, err := baseURL(addr)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	s := &Store{c: &client{base: base, addr: base.Host, opts: opts}, opts: opts}
	h, err := s.Health(ctx)
	if err != nil {
		return nil, err
	}
	if h.Legacy {
		if err := s.checkAdminAPI(ctx); err != nil {
			return nil, err
		}
	}
	if h.ServiceReady != nil && !*h.ServiceReady {
		return nil, fmt.Errorf("mooncake master at %s is not serving (role %q, ha_state %q): %w",
			s.c.addr, h.Role, h.HAState, pool.ErrUnreachable)
	}
	return s, nil
}

// baseURL turns an address into the admin API's base URL.
func baseURL(addr string) (*url.URL, error) {
	raw := addr
	if !hasHTTPScheme(addr) {
		raw = "http://" + addr
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: mooncake master address %q: want host:port", pool.ErrBadURL, addr)
	}
	if u.Port() == "" {
		u.Host = u.Host + ":" + DefaultPort
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
	return u, nil
}

func hasHTTPScheme(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Address is the master's host:port.
func (s *Store) Address() string { return s.c.addr }

// ReadOnly reports true: the admin API accepts no writes.
func (s *Store) ReadOnly() bool { return true }

// readOnlyError is what Put and Remove return.
func (s *Store) readOnlyError(op string) error {
	return fmt.Errorf("%s: mooncake master at %s is read-only through its admin API: %w", op, s.c.addr, pool.ErrReadOnly)
}

// Put fails with an error wrapping pool.ErrReadOnly; results are left as
// they are.
func (s *Store) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	return s.readOnlyError("put")
}

// Remove fails with an error wrapping pool.ErrReadOnly; results are left as
// they are.
func (s *Store) Remove(ctx context.Context, keys []string, force bool, results []pool.Code) error {
	return s.readOnlyError("remove")
}

// Get cannot read bytes: the admin API carries none. It writes
// TransferFail into every n[i], leaves bufs untouched and returns an error
// wrapping errors.ErrUnsupported, without asking the master.
func (s *Store) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	if len(bufs) != len(keys) || len(n) != len(keys) {
		return fmt.Errorf("mooncake get: %d keys, %d buffers, %d sizes: lengths differ", len(keys), len(bufs), len(n))
	}
	for i := range n {
		n[i] = int64(pool.TransferFail)
	}
	return fmt.Errorf("get: mooncake master at %s serves no object bytes through its admin API: %w", s.c.addr, errors.ErrUnsupported)
}

// Close releases idle connections.
func (s *Store) Close() error {
	s.opts.HTTPClient.CloseIdleConnections()
	return nil
}
