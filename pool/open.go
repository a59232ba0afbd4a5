package pool

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Opener opens a store for a parsed pool URL.
type Opener func(ctx context.Context, u *url.URL) (Store, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Opener{}
)

// Register makes a backend available to Open under a URL scheme ("mem",
// "redis", ...). It panics when the scheme is registered twice, since that
// is a programming error found at start-up.
func Register(scheme string, open Opener) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[scheme]; dup {
		panic("pool: Register called twice for scheme " + scheme)
	}
	registry[scheme] = open
}

// Schemes lists the registered URL schemes, sorted.
func Schemes() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]string, 0, len(registry))
	for s := range registry {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Open opens the pool a URL names: mem://?capacity=64GiB&segments=4,
// redis://host:6379/0, valkey://host:6379, mooncake://host:9003,
// mooncake-store://host:50051 or keylist:PATH. A URL whose backend is not registered (or not linked into
// the binary) is refused with an error wrapping ErrBadURL.
func Open(ctx context.Context, rawURL string) (Store, error) {
	if looksLikeHostPort(rawURL) {
		return nil, fmt.Errorf("%w %q: missing scheme, e.g. redis://%s/0 or mooncake://%s", ErrBadURL, rawURL, rawURL, rawURL)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrBadURL, rawURL, err)
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("%w %q: no scheme (want one of %s)", ErrBadURL, rawURL, strings.Join(Schemes(), ", "))
	}
	registryMu.RLock()
	open, ok := registry[strings.ToLower(u.Scheme)]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q: unknown scheme %q (want one of %s)", ErrBadURL, rawURL, u.Scheme, strings.Join(Schemes(), ", "))
	}
	return open(ctx, u)
}

// looksLikeHostPort reports whether s is a bare HOST:PORT (127.0.0.1:6379,
// localhost:6379), an address given without its URL's scheme.
func looksLikeHostPort(s string) bool {
	if strings.Contains(s, "/") {
		return false
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" {
		return false
	}
	_, err = strconv.ParseUint(port, 10, 16)
	return err == nil
}
