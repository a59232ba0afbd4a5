package mem

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/size"
)

func init() {
	pool.Register("mem", func(ctx context.Context, u *url.URL) (pool.Store, error) {
		return Open(ctx, u)
	})
}

// Open opens the store a mem:// URL describes (see the package doc for the
// query parameters).
func Open(ctx context.Context, u *url.URL) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("opening %q: %w", u.Redacted(), err)
	}
	opts, err := ParseURL(u)
	if err != nil {
		return nil, err
	}
	return New(opts)
}

// ParseURL turns a mem:// URL into Options. Errors wrap pool.ErrBadURL and
// name the parameter. A URL with snapshot= and none of capacity=,
// segments=, arena= and metadata_only= takes those from the
// snapshot file's header when the file exists.
func ParseURL(u *url.URL) (Options, error) {
	var opts Options
	bad := func(format string, args ...any) (Options, error) {
		return Options{}, fmt.Errorf("%w %q: %s", pool.ErrBadURL, u.Redacted(), fmt.Sprintf(format, args...))
	}
	if u.Scheme != "mem" {
		return bad("scheme %q is not mem", u.Scheme)
	}
	if u.Opaque != "" || u.User != nil || u.Host != "" || (u.Path != "" && u.Path != "/") || u.Fragment != "" {
		return bad("a mem URL has no host, path or fragment (want mem://?capacity=64GiB&segments=4)")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("query: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(q)) {
		vals := q[name]
		set, ok := urlParams[name]
		if !ok {
			return bad("unknown parameter %q", name)
		}
		if len(vals) != 1 {
			return bad("parameter %q is given %d times", name, len(vals))
		}
		if err := set(&opts, vals[0]); err != nil {
			return bad("parameter %s=%q: %v", name, vals[0], err)
		}
	}
	if err := adoptSnapshotGeometry(&opts, q); err != nil {
		return Options{}, err
	}
	if _, err := opts.withDefaults(); err != nil {
		return bad("%v", err)
	}
	return opts, nil
}

// urlParams maps each query parameter to its setter.
var urlParams = map[string]func(o *Options, v string) error{
	"capacity":          func(o *Options, v string) error { return parsePositiveSize(v, &o.Capacity) },
	"segments":          func(o *Options, v string) error { return parsePositiveInt(v, &o.Segments) },
	"arena":             func(o *Options, v string) error { return parsePositiveSize(v, &o.ArenaSize) },
	"metadata_only":     func(o *Options, v string) error { return parseBool(v, &o.MetadataOnly) },
	"preallocate":       func(o *Options, v string) error { return parseBool(v, &o.Preallocate) },
	"lease_ttl":         func(o *Options, v string) error { return parsePositiveDuration(v, &o.LeaseTTL) },
	"soft_pin_ttl":      func(o *Options, v string) error { return parsePositiveDuration(v, &o.SoftPinTTL) },
	"max_soft_pin_ttl":  func(o *Options, v string) error { return parsePositiveDuration(v, &o.MaxSoftPinTTL) },
	"watermark":         func(o *Options, v string) error { return parseRatio(v, &o.HighWatermark, &o.ZeroHighWatermark) },
	"eviction_ratio":    func(o *Options, v string) error { return parseRatio(v, &o.EvictionRatio, &o.ZeroEvictionRatio) },
	"evict_soft_pinned": parseEvictSoftPinned,
	"eviction":          parseEvictionMode,
	"snapshot":          parseSnapshot,
	"seed":              parseSeed,
}

func parsePositiveSize(v string, dst *int64) error {
	n, err := size.Parse(v)
	if err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("must be positive")
	}
	*dst = n
	return nil
}

func parsePositiveInt(v string, dst *int) error {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("not a positive integer")
	}
	*dst = n
	return nil
}

func parseBool(v string, dst *bool) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("not true or false")
	}
	*dst = b
	return nil
}

func parsePositiveDuration(v string, dst *time.Duration) error {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("not a positive duration such as 10s")
	}
	*dst = d
	return nil
}

// parseRatio reads a ratio in [0, 1], as the master accepts
// eviction_ratio and eviction_high_watermark_ratio; zero sets *zero, since
// a zero ratio in Options takes the default.
func parseRatio(v string, dst *float64, zero *bool) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0 && f <= 1) {
		return fmt.Errorf("not a number in [0, 1]")
	}
	*dst, *zero = f, f == 0
	return nil
}

func parseEvictSoftPinned(o *Options, v string) error {
	var allow bool
	if err := parseBool(v, &allow); err != nil {
		return err
	}
	o.KeepSoftPinned = !allow
	return nil
}

func parseEvictionMode(o *Options, v string) error {
	switch v {
	case "background":
		o.Eviction = EvictBackground
	case "manual":
		o.Eviction = EvictManual
	default:
		return fmt.Errorf("want background or manual")
	}
	return nil
}

func parseSnapshot(o *Options, v string) error {
	if v == "" {
		return fmt.Errorf("empty path")
	}
	o.SnapshotPath = v
	return nil
}

func parseSeed(o *Options, v string) error {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("not an unsigned integer")
	}
	o.Seed = n
	return nil
}
