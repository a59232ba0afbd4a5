package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// startStream starts a streaming completion and reads its first chunk.
func startStream(t *testing.T, ts *testServer, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(ts.url+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s = %d, want 200", body, resp.StatusCode)
	}
	return resp
}

func TestShutdownFinishesInFlight(t *testing.T) {
	ts := startServer(t, func(o *Options) { o.RealTime = true })
	resp := startStream(t, ts, `{"prompt":"abc","max_tokens":60,"stream":true}`)
	defer resp.Body.Close()
	stopped := make(chan error, 1)
	go func() { stopped <- ts.stop() }()
	s := readStream(t, resp.Body)
	if !s.done || len(s.text) != 60 {
		t.Errorf("stream in flight at shutdown = %d letters, [DONE] %v; want all 60 and [DONE]", len(s.text), s.done)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if _, err := ts.pool.Stat(context.Background()); err == nil {
		t.Errorf("pool.Stat() after Run returned = nil error, want the pool closed")
	}
	if _, err := http.Get(ts.url + "/healthz"); err == nil {
		t.Errorf("GET /healthz after shutdown succeeded, want the listener closed")
	}
}

func TestShutdownKeepPool(t *testing.T) {
	ts := startServer(t, func(o *Options) { o.KeepPool = true })
	if err := ts.stop(); err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if _, err := ts.pool.Stat(context.Background()); err != nil {
		t.Errorf("pool.Stat() after Run with KeepPool returned = %v, want the pool open", err)
	}
	ts.pool.Close()
}

func TestShutdownIsBounded(t *testing.T) {
	ts := startServer(t, func(o *Options) {
		o.RealTime = true
		o.ShutdownTimeout = 50 * time.Millisecond
	})
	resp := startStream(t, ts, `{"prompt":"abc","max_tokens":5000,"stream":true}`)
	defer resp.Body.Close()
	if err := ts.stop(); err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if s := readStream(t, resp.Body); s.done {
		t.Errorf("a request cut by shutdown ended with [DONE] after %d letters, want a truncated stream", len(s.text))
	}
}

// brokenPool fails every put with an error that is not the pool's (a
// failed lookup or a pool error is only a miss or a dropped save).
type brokenPool struct{ pool.Store }

var errBroken = errors.New("pool broken")

func (brokenPool) Put(context.Context, []pool.PutItem, []pool.Code) error { return errBroken }

func TestEngineFailureStopsServer(t *testing.T) {
	clk := engine.NewClock()
	p, err := mem.New(mem.Options{Capacity: 64 << 20, Eviction: mem.EvictManual, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // no hang should the engine not fail
	go func() {
		errc <- Run(ctx, Options{Addr: "127.0.0.1:0", Pool: brokenPool{p},
			Engine: engine.Config{Clock: clk}, Ready: func(a string) { ready <- a }})
	}()
	addr := <-ready
	resp, err := http.Post("http://"+addr+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"`+prompt100+`","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("POST during an engine failure = %d, want 503", resp.StatusCode)
	}
	if resp.StatusCode == http.StatusOK {
		cancel()
	}
	if err := <-errc; !errors.Is(err, errBroken) {
		t.Errorf("Run = %v, want the pool's error", err)
	}
}
