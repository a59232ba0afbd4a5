package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/pool"
)

// DefaultShutdownTimeout is how long Run waits for requests in flight
// when its context ends, unless Options.ShutdownTimeout says otherwise.
const DefaultShutdownTimeout = 10 * time.Second

// Options configure Run. Zero fields take the documented defaults.
type Options struct {
	// Addr is the listen address, host:port; port 0 picks a free port
	// (see Ready).
	Addr string
	// Engine configures the engine; its Pool is replaced by Pool. Give the
	// pool the engine's clock (Engine.Clock) so that leases and eviction
	// age with it.
	Engine engine.Config
	// Pool is the KV-cache pool (required). Run closes it when it
	// returns, unless KeepPool.
	Pool pool.Store
	// KeepPool leaves Pool open when Run returns: the caller shares it
	// among servers and closes it after the last one.
	KeepPool bool
	// Master serves the Mooncake master admin API over Pool (GET
	// /get_all_keys, /batch_query_keys, /query_key, /get_all_segments,
	// /get_segments_detail, /query_segment, /api/v1/segments/status,
	// /health, /leader, /role, /ha_status, /kv_events/status and the
	// master_* series of /metrics); kvctl passes
	// mooncake.NewMasterHandler(Pool). Nil serves none of them.
	Master http.Handler
	// RealTime paces the engine in wall time (engine.LiveOptions).
	RealTime bool
	// APIKey, when not empty, is required as "Authorization: Bearer
	// APIKey" by the /v1 paths and by the admin paths that change the
	// pool (/query_key grants a lease); /healthz, /metrics and the
	// read-only admin paths stay open.
	APIKey string
	// ModelName is the model id of /v1/models and the only one
	// /v1/completions accepts; default engine.DefaultModelKey.
	ModelName string
	// ShutdownTimeout bounds the wait for requests in flight on shutdown;
	// default DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Role is the server's role in a disaggregated deployment:
	// RoleContext answers context_only requests, RoleGeneration
	// generation_only ones; "" answers neither. Every role answers plain
	// requests.
	Role string
	// KVTransfer configures the KV transfer between the roles: a context
	// server holds a context_only request's KV for KVTransfer.Timeout and
	// serves it at KVPath; a generation server takes it from there.
	KVTransfer KVTransferOptions
	// Logf, when not nil, receives log lines (shutdown, engine failure).
	Logf func(format string, args ...any)
	// Ready, when not nil, is called with the bound address once the
	// server listens.
	Ready func(addr string)
}

func (o *Options) setDefaults() {
	if o.ModelName == "" {
		o.ModelName = engine.DefaultModelKey
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	o.KVTransfer.setDefaults()
}

// Run serves until ctx ends (it returns nil then, after a graceful
// shutdown) or the engine fails (it returns the engine's error). It
// closes opts.Pool before returning, in every case, unless opts.KeepPool.
func Run(ctx context.Context, opts Options) (err error) {
	if opts.Pool == nil {
		return errors.New("server: no pool")
	}
	defer func() {
		if opts.KeepPool {
			return
		}
		if cerr := opts.Pool.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing the pool: %w", cerr))
		}
	}()
	opts.setDefaults()
	if opts.Role != "" && opts.Role != RoleContext && opts.Role != RoleGeneration {
		return fmt.Errorf("server: role %q: want %s or %s", opts.Role, RoleContext, RoleGeneration)
	}
	cfg := opts.Engine
	cfg.Pool = opts.Pool
	live, err := engine.NewLive(cfg, engine.LiveOptions{RealTime: opts.RealTime, KVHoldTimeout: opts.KVTransfer.Timeout})
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("server: listening on %q: %w", opts.Addr, err)
	}
	return serve(ctx, ln, live, opts)
}

// serve runs the engine and the HTTP server on ln until ctx ends or the
// engine fails.
func serve(ctx context.Context, ln net.Listener, live *engine.Live, opts Options) error {
	engineCtx, stopEngine := context.WithCancel(context.WithoutCancel(ctx))
	defer stopEngine()
	engineErr := make(chan error, 1)
	go func() { engineErr <- live.Run(engineCtx) }()
	srv := &http.Server{Handler: newHandler(live, opts), ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	var err error
	select {
	case <-ctx.Done():
		opts.Logf("shutting down: waiting up to %s for requests in flight", opts.ShutdownTimeout)
	case err = <-serveErr:
		err = fmt.Errorf("server: %w", err)
	case <-live.Done():
	}
	shutdown(srv, opts.ShutdownTimeout, opts.Logf)
	stopEngine()
	if eerr := <-engineErr; eerr != nil {
		opts.Logf("engine stopped: %v", eerr)
		err = errors.Join(err, fmt.Errorf("server: %w", eerr))
	}
	return err
}

// shutdown stops accepting, waits up to the timeout for the handlers in
// flight and closes the connections left (their requests are cancelled).
func shutdown(srv *http.Server, timeout time.Duration, logf func(string, ...any)) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		logf("shutdown: %v; closing the connections left", err)
		srv.Close()
	}
}

// adminReadPaths are the Mooncake master admin paths that only read the
// pool: open whatever Options.APIKey says, as a Mooncake master's are (the
// pool's mooncake:// client sends no key), and showing what /metrics
// shows.
var adminReadPaths = []string{"/get_all_keys", "/batch_query_keys", "/get_segments_detail", "/health",
	"/get_all_segments", "/query_segment", "/api/v1/segments/status", "/leader", "/role", "/ha_status", "/kv_events/status"}

// adminWritePaths are the admin paths that change the pool: /query_key
// leases the key it finds, which keeps it from removal for a while.
var adminWritePaths = []string{"/query_key"}

// newHandler routes the server's endpoints.
func newHandler(live *engine.Live, opts Options) http.Handler {
	mux := http.NewServeMux()
	c := &completions{live: live, model: opts.ModelName, metrics: newMetrics(live, opts.Pool), role: opts.Role}
	c.kv = newKVFetcher(opts.KVTransfer, c.metrics.kv)
	keyed := func(h http.Handler) http.Handler { return requireKey(opts.APIKey, h) }
	mux.Handle("POST /v1/completions", keyed(c.handler(&textCompletions)))
	mux.Handle("POST /v1/chat/completions", keyed(c.handler(&chatCompletions)))
	mux.Handle("GET /v1/models", keyed(http.HandlerFunc(c.models)))
	mux.Handle("GET "+KVPath+"{id}", keyed(http.HandlerFunc(c.takeKV)))
	mux.Handle("DELETE "+KVPath+"{id}", keyed(http.HandlerFunc(c.releaseKV)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { healthz(w, live) })
	mux.Handle("GET /metrics", c.metrics.handler())
	if opts.Master != nil {
		for _, p := range adminReadPaths {
			mux.Handle("GET "+p, opts.Master)
		}
		for _, p := range adminWritePaths {
			mux.Handle("GET "+p, keyed(opts.Master))
		}
	}
	return mux
}

func healthz(w http.ResponseWriter, live *engine.Live) {
	select {
	case <-live.Done():
		writeError(w, http.StatusServiceUnavailable, "the engine stopped", "service_unavailable")
	default:
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}
}
