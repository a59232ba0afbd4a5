package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/pool/mooncake"
)

// testServer is a running server and its pool.
type testServer struct {
	url  string
	pool *mem.Store
	stop func() error // cancels Run and returns its error
}

// startServer runs a server on 127.0.0.1:0 with a small engine; edit
// changes the options first.
func startServer(t *testing.T, edit func(*Options)) *testServer {
	t.Helper()
	clk := engine.NewClock()
	p, err := mem.New(mem.Options{Capacity: 64 << 20, Eviction: mem.EvictManual, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Addr: "127.0.0.1:0", Pool: p, Master: mooncake.NewMasterHandler(p), ModelName: "test-model",
		Engine: engine.Config{Clock: clk, Verify: true, Keys: keys.Settings{Layout: engine.DefaultLayout(16)}, GPU: engine.GPUConfig{Blocks: 2048}}}
	if edit != nil {
		edit(&opts)
	}
	ready := make(chan string, 1)
	opts.Ready = func(addr string) { ready <- addr }
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, opts) }()
	ts := &testServer{pool: p}
	select {
	case addr := <-ready:
		ts.url = "http://" + addr
	case err := <-errc:
		cancel()
		t.Fatalf("Run = %v before it listened", err)
	}
	var stopped bool
	var runErr error
	ts.stop = func() error {
		if !stopped {
			cancel()
			runErr, stopped = <-errc, true
		}
		return runErr
	}
	t.Cleanup(func() {
		if err := ts.stop(); err != nil {
			t.Errorf("Run = %v, want nil after cancel", err)
		}
	})
	return ts
}

// post sends a JSON body to path and returns the status and body.
func (ts *testServer) post(t *testing.T, path, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(ts.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: reading the body: %v", path, err)
	}
	return resp.StatusCode, b
}

func (ts *testServer) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(ts.url + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// complete posts a non-streaming completion that must succeed.
func (ts *testServer) complete(t *testing.T, body string) completion {
	t.Helper()
	status, b := ts.post(t, "/v1/completions", body)
	if status != http.StatusOK {
		t.Fatalf("POST /v1/completions %s = %d %s, want 200", body, status, b)
	}
	var c completion
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("POST /v1/completions: %v in %s", err, b)
	}
	return c
}

// streamed is what a streaming completion sent.
type streamed struct {
	chunks []completion
	text   string
	done   bool // saw data: [DONE]
}

// readStream reads server-sent events until [DONE] or the end.
func readStream(t *testing.T, r io.Reader) streamed {
	t.Helper()
	var s streamed
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("stream line %q, want a data: line", line)
		}
		if data == "[DONE]" {
			s.done = true
			continue
		}
		var c completion
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("stream chunk %q: %v", data, err)
		}
		s.chunks = append(s.chunks, c)
		for _, ch := range c.Choices {
			s.text += ch.Text
		}
	}
	return s
}

// stream posts a streaming completion to path that must start with 200.
func (ts *testServer) stream(t *testing.T, path, body string) streamed {
	t.Helper()
	resp := ts.startStream(t, path, body)
	defer resp.Body.Close()
	return readStream(t, resp.Body)
}

// startStream posts a streaming request to path that must start with 200;
// the caller closes the body.
func (ts *testServer) startStream(t *testing.T, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(ts.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("POST %s %s = %d %s, want a 200 event stream", path, body, resp.StatusCode, b)
	}
	return resp
}

// metricValue returns the value of an unlabelled sample of /metrics.
func metricValue(t *testing.T, body []byte, name string) float64 {
	t.Helper()
	for _, line := range bytes.Split(body, []byte("\n")) {
		var v float64
		if rest, ok := bytes.CutPrefix(line, []byte(name+" ")); ok {
			if _, err := fmt.Sscan(string(rest), &v); err == nil {
				return v
			}
		}
	}
	t.Fatalf("/metrics has no sample %s", name)
	return 0
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// eventReader reads the data: payloads of a server-sent event stream.
type eventReader struct{ sc *bufio.Scanner }

func newEventReader(r io.Reader) *eventReader { return &eventReader{sc: bufio.NewScanner(r)} }

// next returns the next data payload; io.ErrUnexpectedEOF when the stream
// ends first.
func (e *eventReader) next() (string, error) {
	for e.sc.Scan() {
		line := e.sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			return "", fmt.Errorf("stream line %q, want a data: line", line)
		}
		return data, nil
	}
	if err := e.sc.Err(); err != nil {
		return "", err
	}
	return "", io.ErrUnexpectedEOF
}
