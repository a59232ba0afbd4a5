package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// DefaultLegTimeout bounds each leg of a disaggregated request unless
// FrontOptions.LegTimeout says otherwise: the context leg to its whole
// answer, the generation leg to its first chunk (TensorRT-LLM's
// disaggregated server bounds a request by req_timeout_secs, 180 s).
const DefaultLegTimeout = 180 * time.Second

// FrontOptions configure RunFront and NewFront. Zero fields take the
// documented defaults.
type FrontOptions struct {
	// Addr is the listen address, host:port; port 0 picks a free port.
	Addr string
	// Context and Generation are the base URLs of the context and
	// generation servers (ParseUpstream's form); one of each at least.
	Context, Generation []string
	// Routing is RouteRoundRobin (default) or RouteLeastLoaded, over the
	// context servers and over the generation servers.
	Routing string
	// APIKey, when not empty, is required as "Authorization: Bearer
	// APIKey" by the /v1 paths, as Options.APIKey. The front passes a
	// request's Authorization header on to the servers it calls.
	APIKey string
	// LegTimeout bounds each leg; default DefaultLegTimeout.
	LegTimeout time.Duration
	// Client sends the legs; default a client with no timeout of its own
	// (LegTimeout bounds the legs) that keeps up to 256 idle connections
	// to each server.
	Client *http.Client
	// ShutdownTimeout bounds the wait for requests in flight on shutdown;
	// default DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Logf, when not nil, receives log lines.
	Logf func(format string, args ...any)
	// Ready, when not nil, is called with the bound address once the
	// front listens.
	Ready func(addr string)
}

func (o *FrontOptions) setDefaults() {
	if o.Routing == "" {
		o.Routing = RouteRoundRobin
	}
	if o.LegTimeout <= 0 {
		o.LegTimeout = DefaultLegTimeout
	}
	if o.Client == nil {
		o.Client = newLegClient()
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
}

// front is the disaggregated front's state.
type front struct {
	opts     FrontOptions
	ctx, gen *router
	metrics  *frontMetrics
}

// NewFront returns the disaggregated front's handler: POST
// /v1/completions and /v1/chat/completions sent to a context server as
// context_only, then to a generation server as generation_only, GET
// /v1/models (a generation server's), /healthz and /metrics.
func NewFront(opts FrontOptions) (http.Handler, error) {
	opts.setDefaults()
	ctx, err := newRouter(opts.Context, opts.Routing)
	if err != nil {
		return nil, fmt.Errorf("context servers: %w", err)
	}
	gen, err := newRouter(opts.Generation, opts.Routing)
	if err != nil {
		return nil, fmt.Errorf("generation servers: %w", err)
	}
	f := &front{opts: opts, ctx: ctx, gen: gen, metrics: newFrontMetrics()}
	mux := http.NewServeMux()
	keyed := func(h http.Handler) http.Handler { return requireKey(opts.APIKey, h) }
	mux.Handle("POST /v1/completions", keyed(f.handler(&textRoute)))
	mux.Handle("POST /v1/chat/completions", keyed(f.handler(&chatRoute)))
	mux.Handle("GET /v1/models", keyed(http.HandlerFunc(f.models)))
	mux.HandleFunc("GET /healthz", f.healthz)
	mux.Handle("GET /metrics", f.metrics.handler())
	return mux, nil
}

// RunFront serves the disaggregated front until ctx ends (it returns nil
// then, after a graceful shutdown) or the listener fails.
func RunFront(ctx context.Context, opts FrontOptions) error {
	h, err := NewFront(opts)
	if err != nil {
		return fmt.Errorf("disaggregated front: %w", err)
	}
	opts.setDefaults()
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("disaggregated front: listening on %q: %w", opts.Addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	select {
	case <-ctx.Done():
		opts.Logf("shutting down: waiting up to %s for requests in flight", opts.ShutdownTimeout)
	case err = <-serveErr:
		if !errors.Is(err, http.ErrServerClosed) {
			err = fmt.Errorf("disaggregated front: %w", err)
		}
	}
	shutdown(srv, opts.ShutdownTimeout, opts.Logf)
	return err
}

// newLegClient is the default client of the legs: http.DefaultTransport's
// settings, with enough idle connections per server that a front under
// load reuses them instead of dialling a connection per request.
func newLegClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 0, 256
	return &http.Client{Transport: t}
}
