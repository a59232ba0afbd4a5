package mooncake

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// openURL is the pool.Opener for mooncake://host:port?options.
func openURL(ctx context.Context, u *url.URL) (pool.Store, error) {
	opts, err := ParseURL(u)
	if err != nil {
		return nil, err
	}
	return New(ctx, u.Host, opts)
}

// ParseURL checks a mooncake://host[:port][?options] URL and returns its
// options (see the package comment); the address is u.Host. Unknown options
// and bad values are refused with an error wrapping pool.ErrBadURL.
func ParseURL(u *url.URL) (Options, error) {
	var opts Options
	bad := func(format string, args ...any) (Options, error) {
		return Options{}, fmt.Errorf("%w %q: %s", pool.ErrBadURL, u.Redacted(), fmt.Sprintf(format, args...))
	}
	if u.Host == "" || u.Hostname() == "" {
		return bad("no master host (want mooncake://host:9003)")
	}
	if u.User != nil {
		return bad("user information is not supported")
	}
	if u.Path != "" && u.Path != "/" {
		return bad("unexpected path %q", u.Path)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("query: %v", err)
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(q[k]) != 1 {
			return bad("option %q given %d times", k, len(q[k]))
		}
		if err := setOption(&opts, k, q[k][0]); err != nil {
			return bad("%v", err)
		}
	}
	return opts, nil
}

// setOption sets one URL option.
func setOption(o *Options, name, value string) error {
	switch name {
	case "timeout":
		return parseDuration(name, value, &o.Timeout)
	case "backoff":
		return parseDuration(name, value, &o.Backoff)
	case "chunk":
		return parseCount(name, value, 1, &o.Chunk)
	case "parallel":
		return parseCount(name, value, 1, &o.Parallel)
	case "retries":
		if err := parseCount(name, value, 0, &o.Retries); err != nil {
			return err
		}
		if o.Retries == 0 {
			o.Retries = -1 // Options: negative means none, zero means default
		}
		return nil
	}
	return fmt.Errorf("unknown option %q (want timeout, chunk, parallel, retries or backoff)", name)
}

func parseDuration(name, value string, dst *time.Duration) error {
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 {
		return fmt.Errorf("option %s=%q: want a positive duration such as 5s", name, value)
	}
	*dst = d
	return nil
}

func parseCount(name, value string, min int, dst *int) error {
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || n < min || n > 1<<20 {
		return fmt.Errorf("option %s=%q: want an integer from %d to %d", name, value, min, 1<<20)
	}
	*dst = n
	return nil
}
