package redis

import (
	"crypto/tls"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/kvctl/kvctl/pool"
)

// DefaultDialTimeout is how long Open waits for a TCP (and TLS) connection
// to a server before it reports the pool unreachable; ?dial_timeout= in the
// URL overrides it.
const DefaultDialTimeout = 2 * time.Second

// defaultPort is Redis's and Valkey's port.
const defaultPort = "6379"

// maxReadRetries bounds how often rueidis retries a read-only command
// (EXISTS, GET, SCAN, INFO) after a connection failure: with retryDelay's
// backoff, about 2 to 4 s in all, enough for a reconnect, short enough that
// a dead pool fails the call instead of hanging until the context ends.
const maxReadRetries = 20

// boundedBackoff is rueidis's exponential backoff (2^attempts µs plus
// jitter, at most 1 s), giving up after the given number of retries, and at
// once while down reports the pool down: once a call has failed for want
// of the server, later calls fail fast instead of each riding out the
// retries, so a run that goes on without its pool (serve's lookups miss,
// its saves are dropped) is not slowed to seconds a call.
func boundedBackoff(retries int, down *atomic.Bool) rueidis.RetryDelayFn {
	return func(attempts int, _ rueidis.Completed, _ error) time.Duration {
		if attempts > retries || down.Load() {
			return -1
		}
		base := time.Duration(1<<min(attempts, 20)) * time.Microsecond
		return min(time.Second, base+rand.N(base))
	}
}

// pinMode says how put options are mapped onto Redis key expiry.
type pinMode int

const (
	// pinsNone stores every key without an expiry; pins are not recorded.
	pinsNone pinMode = iota
	// pinsVolatile gives every key that is not hard-pinned a far expiry, so
	// that a volatile-* maxmemory policy never evicts hard-pinned keys.
	pinsVolatile
)

// config is what a pool URL says.
type config struct {
	opt   rueidis.ClientOption
	addrs []string
	pins  pinMode
	// readRetries bounds the retries of a read-only command.
	readRetries int
}

// knownParams are the query parameters a pool URL may carry.
var knownParams = map[string]bool{
	"addr": true, "db": true, "dial_timeout": true, "timeout": true,
	"protocol": true, "client_name": true, "skip_verify": true, "pins": true,
}

// parseURL reads a redis://, rediss://, valkey:// or valkeys:// URL:
//
//	redis://[user[:password]@]host[:port][/db][?addr=host:port&...]
//
// Query parameters: addr (more init addresses, repeatable; several addresses
// mean a cluster), db, dial_timeout and timeout (Go durations), protocol (2
// forces RESP2), client_name, skip_verify (TLS schemes only) and pins
// (none or volatile).
func parseURL(u *url.URL) (config, error) {
	var c config
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "redis", "valkey":
	case "rediss", "valkeys":
		c.opt.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	default:
		return c, badURL(u, "scheme %q is not redis, rediss, valkey or valkeys", u.Scheme)
	}
	if u.Opaque != "" {
		return c, badURL(u, "want %s://host:port", scheme)
	}
	if u.Fragment != "" {
		return c, badURL(u, "unexpected fragment %q", u.Fragment)
	}
	// TLS leaves ServerName empty: each connection verifies the certificate
	// against the address it dials, which is right for every cluster node.
	addr, err := hostAddr(u.Host)
	if err != nil {
		return c, badURL(u, "%v", err)
	}
	c.addrs = []string{addr}
	if u.User != nil {
		c.opt.Username = u.User.Username()
		c.opt.Password, _ = u.User.Password()
	}
	if c.opt.SelectDB, err = pathDB(u.Path); err != nil {
		return c, badURL(u, "%v", err)
	}
	if err := c.applyQuery(u); err != nil {
		return c, badURL(u, "%v", err)
	}
	c.setDefaults()
	return c, nil
}

// setDefaults fills in what the URL left out. Client-side caching is off:
// kvctl never reads through the cache, and without it servers that speak
// only RESP2 work too.
func (c *config) setDefaults() {
	c.opt.InitAddress = c.addrs
	c.opt.DisableCache = true
	c.readRetries = maxReadRetries
	if c.opt.Dialer.Timeout == 0 {
		c.opt.Dialer.Timeout = DefaultDialTimeout
	}
	if c.opt.ClientName == "" {
		c.opt.ClientName = "kvctl"
	}
}

// badURL wraps pool.ErrBadURL with the (password-free) URL and a reason.
func badURL(u *url.URL, format string, args ...any) error {
	return fmt.Errorf("%w %q: %s", pool.ErrBadURL, u.Redacted(), fmt.Sprintf(format, args...))
}

// hostAddr completes "host[:port]" to "host:port", with localhost and 6379
// as the defaults.
func hostAddr(hostport string) (string, error) {
	host, port := hostport, defaultPort
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.HasSuffix(hostport, "]") {
		host, port = hostport[:i], hostport[i+1:]
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		host = "localhost"
	}
	if strings.ContainsAny(host, "/?#@ ") {
		return "", fmt.Errorf("bad host %q", host)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return "", fmt.Errorf("bad port %q in %q", port, hostport)
	}
	return net.JoinHostPort(host, port), nil
}

// pathDB reads the database number from a URL path: "" or "/" is 0, "/N" is N.
func pathDB(path string) (int, error) {
	p := strings.TrimPrefix(path, "/")
	if p == "" {
		return 0, nil
	}
	return parseDB(p)
}

// parseDB reads a database number.
func parseDB(s string) (int, error) {
	n, err := strconv.ParseUint(s, 10, 31)
	if err != nil {
		return 0, fmt.Errorf("database %q is not a non-negative integer", s)
	}
	return int(n), nil
}

// applyQuery applies the URL's query parameters.
func (c *config) applyQuery(u *url.URL) error {
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return fmt.Errorf("query: %v", err)
	}
	for name, vals := range q {
		if !knownParams[name] {
			return fmt.Errorf("unknown parameter %q", name)
		}
		if name != "addr" && len(vals) > 1 {
			return fmt.Errorf("parameter %q given %d times", name, len(vals))
		}
	}
	for _, a := range q["addr"] {
		if a == "" {
			return fmt.Errorf("addr: empty")
		}
		addr, err := hostAddr(a)
		if err != nil {
			return fmt.Errorf("addr: %v", err)
		}
		c.addrs = append(c.addrs, addr)
	}
	for name := range q {
		if err := c.applyParam(name, q.Get(name), u.Path); err != nil {
			return err
		}
	}
	return nil
}

// applyParam applies one single-valued query parameter.
func (c *config) applyParam(name, v, path string) error {
	var err error
	switch name {
	case "db":
		if strings.Trim(path, "/") != "" {
			return fmt.Errorf("database given both in the path and as db=%s", v)
		}
		c.opt.SelectDB, err = parseDB(v)
	case "dial_timeout":
		c.opt.Dialer.Timeout, err = parsePositiveDuration(v)
	case "timeout":
		c.opt.ConnWriteTimeout, err = parsePositiveDuration(v)
	case "protocol":
		err = c.setProtocol(v)
	case "client_name":
		if strings.ContainsAny(v, " \r\n") || v == "" {
			err = fmt.Errorf("%q has spaces or is empty", v)
		}
		c.opt.ClientName = v
	case "skip_verify":
		err = c.setSkipVerify(v)
	case "pins":
		err = c.setPins(v)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func parsePositiveDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration such as 2s", v)
	}
	return d, nil
}

func (c *config) setProtocol(v string) error {
	switch v {
	case "2":
		c.opt.AlwaysRESP2 = true
	case "3":
	default:
		return fmt.Errorf("%q is not 2 or 3", v)
	}
	return nil
}

func (c *config) setSkipVerify(v string) error {
	if c.opt.TLSConfig == nil {
		return fmt.Errorf("only for rediss:// and valkeys://")
	}
	skip := true
	if v != "" {
		var err error
		if skip, err = strconv.ParseBool(v); err != nil {
			return fmt.Errorf("%q is not a boolean", v)
		}
	}
	c.opt.TLSConfig.InsecureSkipVerify = skip
	return nil
}

func (c *config) setPins(v string) error {
	switch v {
	case "none":
		c.pins = pinsNone
	case "volatile":
		c.pins = pinsVolatile
	default:
		return fmt.Errorf("%q is not none or volatile", v)
	}
	return nil
}
