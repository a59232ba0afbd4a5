// Package redis is the pool backend for Redis and Valkey, single node or
// cluster, through github.com/redis/rueidis. It is the pool several kvctl
// processes on several machines share.
//
// Importing it registers the URL schemes redis, rediss, valkey and valkeys
// with pool.Register:
//
//	redis://[user[:password]@]host[:port][/db]
//	rediss://...                                  (TLS)
//	redis://h1:7000?addr=h2:7001&addr=h3:7002     (cluster: more init addresses)
//
// A single address is probed with CLUSTER SLOTS and used as a cluster when the
// server runs in cluster mode, as a single node otherwise; several addresses
// must belong to one cluster.
//
// Writes are SET NX: a put never overwrites. Every batch is one pipeline
// (DoMulti): one round trip per batch (per node in a cluster), not per key.
// Pool keys are stored under a layout that puts every page of one block and
// the block's group key into one cluster slot (see storedKey). Pins cannot be
// honoured by Redis as Mooncake does; see the pins URL parameter in
// docs/pools.md for what is mapped.
package redis

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/redis/rueidis"

	"github.com/kvctl/kvctl/pool"
)

func init() {
	for _, scheme := range []string{"redis", "rediss", "valkey", "valkeys"} {
		pool.Register(scheme, func(ctx context.Context, u *url.URL) (pool.Store, error) {
			return Open(ctx, u)
		})
	}
}

// Store is a pool kept in a Redis or Valkey server or cluster.
type Store struct {
	client rueidis.Client
	addr   string
	pins   pinMode
	// down is set when a whole call failed for want of the server and
	// cleared when a call gets answers again; while set, reads are not
	// retried (boundedBackoff).
	down *atomic.Bool
}

var (
	_ pool.Store  = (*Store)(nil)
	_ pool.Lister = (*Store)(nil)
	_ pool.Sizer  = (*Store)(nil)
)

// Open connects to the server or cluster a redis://, rediss://, valkey:// or
// valkeys:// URL names. A malformed URL gives an error wrapping
// pool.ErrBadURL; a server that cannot be reached (or refuses the
// credentials) gives one wrapping pool.ErrUnreachable that names the address.
func Open(ctx context.Context, u *url.URL) (*Store, error) {
	cfg, err := parseURL(u)
	if err != nil {
		return nil, err
	}
	return openConfig(ctx, cfg)
}

// openConfig connects with a parsed configuration.
func openConfig(ctx context.Context, cfg config) (*Store, error) {
	addr := strings.Join(cfg.addrs, ",")
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("opening redis pool at %s: %w", addr, err)
	}
	down := new(atomic.Bool)
	cfg.opt.RetryDelay = boundedBackoff(cfg.readRetries, down)
	client, err := rueidis.NewClient(cfg.opt)
	if err != nil {
		return nil, fmt.Errorf("opening redis pool at %s: %w: %w", addr, pool.ErrUnreachable, explainProtocol(addr, err))
	}
	if client.Mode() == rueidis.ClientModeCluster && cfg.opt.SelectDB != 0 {
		client.Close()
		return nil, fmt.Errorf("%w: redis pool at %s is a cluster, which has only database 0, not %d",
			pool.ErrBadURL, addr, cfg.opt.SelectDB)
	}
	return &Store{client: client, addr: addr, pins: cfg.pins, down: down}, nil
}

// Close closes the connections.
func (s *Store) Close() error {
	s.client.Close()
	return nil
}

// Cluster reports whether the store talks to a Redis cluster.
func (s *Store) Cluster() bool {
	return s.client.Mode() == rueidis.ClientModeCluster
}

// failure is a per-key failure: the code reported for the key and its cause.
type failure struct {
	code pool.Code
	err  error
}

// classify maps a command's error to a per-key failure. Error replies that
// say the server is out of memory become NoAvailableHandle; transport
// errors are wrapped with pool.ErrUnreachable and the address.
func (s *Store) classify(op, key string, err error) failure {
	if _, isReply := rueidis.IsRedisErr(err); isReply {
		code := pool.RPCFail
		if strings.HasPrefix(err.Error(), "OOM ") {
			code = pool.NoAvailableHandle
		}
		return failure{code, &pool.Error{Code: code, Op: op, Key: key, Err: err}}
	}
	code := pool.RPCFail
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		code = pool.RPCTimeout
	}
	what := op
	if key != "" {
		what += fmt.Sprintf(" %q", key)
	}
	return failure{code, fmt.Errorf("%s: redis at %s: %w: %w", what, s.addr, pool.ErrUnreachable, explainProtocol(s.addr, err))}
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// batchError decides whether a batch failed as a whole: when the context
// ended, or when every key failed (first holds the first failure and failed
// counts them). OOM is a per-key result, never a whole-call failure.
func batchError(ctx context.Context, op string, n, failed int, first error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis %s: %w", op, err)
	}
	if n > 0 && failed == n && pool.CodeOf(first) != pool.NoAvailableHandle {
		return first
	}
	return nil
}
