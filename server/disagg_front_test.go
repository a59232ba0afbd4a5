package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeUpstream is an httptest server that records the bodies it was sent
// and answers with answer.
type fakeUpstream struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	auths  []string
}

func newFakeUpstream(t *testing.T, answer http.HandlerFunc) *fakeUpstream {
	t.Helper()
	f := &fakeUpstream{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.auths = append(f.auths, r.Header.Get("Authorization"))
		f.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeUpstream) received() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}

// contextAnswers answers as a context server: one token and the params.
func contextAnswers(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"choices": []any{map[string]any{"text": "h", "finish_reason": "length",
		"disaggregated_params": map[string]any{"request_type": "context_only", "first_gen_tokens": []int{7}, "ctx_request_id": 42}}}})
}

// streamEvents answers a stream of the given data events, then [DONE].
func streamEvents(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ev := startEvents(w)
		for _, e := range events {
			ev.write("data: " + e + "\n\n")
			ev.flush()
		}
		ev.end()
	}
}

// startFront serves a front over the servers with opts' other fields.
func startFront(t *testing.T, ctx, gen []string, opts FrontOptions) *httptest.Server {
	t.Helper()
	opts.Context, opts.Generation = ctx, gen
	h, err := NewFront(opts)
	if err != nil {
		t.Fatalf("NewFront: %v", err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestFrontSendsContextThenGeneration(t *testing.T) {
	tests := []struct {
		route, body string
		gen         http.HandlerFunc
		wantCtx     map[string]any
	}{
		{"/v1/completions", `{"prompt":"hi","max_tokens":5,"stream":true,"stream_options":{"include_usage":true},"temperature":0}`,
			streamEvents(`{"choices":[{"text":"a"}]}`),
			map[string]any{"prompt": "hi", "max_tokens": 1.0, "stream": false, "temperature": 0.0,
				"disaggregated_params": map[string]any{"request_type": "context_only"}}},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":5}`,
			func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, map[string]any{"choices": []any{map[string]any{"text": "abcde"}}})
			},
			map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi"}}, "max_tokens": 5.0, "max_completion_tokens": 1.0,
				"stream": false, "disaggregated_params": map[string]any{"request_type": "context_only"}}},
	}
	for _, tt := range tests {
		t.Run(tt.route, func(t *testing.T) {
			ctx := newFakeUpstream(t, contextAnswers)
			gen := newFakeUpstream(t, tt.gen)
			front := startFront(t, []string{ctx.URL}, []string{gen.URL}, FrontOptions{})
			status, body := post(t, front.URL+tt.route, tt.body)
			if status != http.StatusOK || !strings.Contains(body, `"a`) {
				t.Fatalf("POST %s = %d %q, want 200 and the generation server's answer", tt.route, status, body)
			}
			if diff := cmp.Diff([]map[string]any{tt.wantCtx}, ctx.received()); diff != "" {
				t.Errorf("context leg's request (-want +got):\n%s", diff)
			}
			var want map[string]any
			json.Unmarshal([]byte(tt.body), &want)
			want["disaggregated_params"] = map[string]any{"request_type": "generation_only", "first_gen_tokens": []any{7.0},
				"ctx_request_id": 42.0, "ctx_info_endpoint": ctx.URL}
			if diff := cmp.Diff([]map[string]any{want}, gen.received()); diff != "" {
				t.Errorf("generation leg's request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFrontRelaysStream(t *testing.T) {
	chunks := []string{`{"choices":[{"text":"a"}]}`, `{"choices":[{"text":"b"}]}`, `{"choices":[{"text":"c","finish_reason":"length"}]}`}
	ctx := newFakeUpstream(t, contextAnswers)
	gen := newFakeUpstream(t, streamEvents(chunks...))
	front := startFront(t, []string{ctx.URL}, []string{gen.URL}, FrontOptions{})
	status, body := post(t, front.URL+"/v1/completions", `{"prompt":"hi","max_tokens":3,"stream":true}`)
	want := "data: " + strings.Join(chunks, "\n\ndata: ") + "\n\ndata: [DONE]\n\n"
	if status != http.StatusOK || body != want {
		t.Errorf("stream = %d %q, want 200 %q", status, body, want)
	}
}

// hangUp answers 200 with an event stream's headers, then closes the
// connection before any event.
func hangUp(w http.ResponseWriter, r *http.Request) {
	startEvents(w).flush()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

func TestFrontStreamFailsBeforeFirstChunk(t *testing.T) {
	tests := []struct {
		name   string
		gen    http.HandlerFunc
		status int
		want   string
	}{
		{"ends without a chunk", func(w http.ResponseWriter, r *http.Request) { startEvents(w).flush() },
			http.StatusBadGateway, "the stream ended before its first chunk"},
		{"only [DONE]", streamEvents(), http.StatusBadGateway, "the stream ended before its first chunk"},
		{"error object first", streamEvents(`{"error":{"message":"engine stopped","type":"service_unavailable"}}`),
			http.StatusBadGateway, "the stream failed before its first chunk: engine stopped"},
		{"connection closed", hangUp, http.StatusBadGateway, "before the first chunk"},
		{"status kept", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusServiceUnavailable, "the engine stopped", "service_unavailable")
		}, http.StatusServiceUnavailable, "the engine stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := newFakeUpstream(t, contextAnswers)
			gen := newFakeUpstream(t, tt.gen)
			front := startFront(t, []string{ctx.URL}, []string{gen.URL}, FrontOptions{})
			for _, route := range []string{"/v1/completions", "/v1/chat/completions"} {
				status, body := post(t, front.URL+route, `{"prompt":"hi","messages":[],"stream":true}`)
				if status != tt.status || !strings.Contains(body, tt.want) || !strings.Contains(body, `"error"`) {
					t.Errorf("POST %s = %d %q, want %d and an error holding %q", route, status, body, tt.status, tt.want)
				}
			}
		})
	}
}

func TestFrontGenerationTimesOutBeforeFirstChunk(t *testing.T) {
	ctx := newFakeUpstream(t, contextAnswers)
	gen := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		startEvents(w).flush()
		<-r.Context().Done()
	})
	front := startFront(t, []string{ctx.URL}, []string{gen.URL}, FrontOptions{LegTimeout: 50 * time.Millisecond})
	status, body := post(t, front.URL+"/v1/completions", `{"prompt":"hi","stream":true}`)
	want := fmt.Sprintf("generation server %s did not answer within 50ms", gen.URL)
	if status != http.StatusGatewayTimeout || !strings.Contains(body, want) {
		t.Errorf("stream = %d %q, want 504 holding %q", status, body, want)
	}
}

func TestFrontContextFailureSkipsGeneration(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	tests := []struct {
		name   string
		ctx    http.HandlerFunc // nil: the server is down
		status int
		want   string
	}{
		{"status kept", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusBadRequest, "prompt is required", "invalid_request_error")
		}, http.StatusBadRequest, `"message":"prompt is required"`},
		{"down", nil, http.StatusBadGateway, "context server " + down.URL + ": "},
		{"times out", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			http.StatusGatewayTimeout, "did not answer within 50ms"},
		{"no params", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"choices": []any{map[string]any{"text": "h"}}})
		}, http.StatusBadGateway, "no disaggregated_params"},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>") },
			http.StatusBadGateway, "reading its answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctxURL := down.URL
			if tt.ctx != nil {
				ctxURL = newFakeUpstream(t, tt.ctx).URL
			}
			gen := newFakeUpstream(t, streamEvents(`{"choices":[{"text":"a"}]}`))
			front := startFront(t, []string{ctxURL}, []string{gen.URL}, FrontOptions{LegTimeout: 50 * time.Millisecond})
			for _, stream := range []string{"false", "true"} {
				status, body := post(t, front.URL+"/v1/completions", `{"prompt":"hi","stream":`+stream+`}`)
				if status != tt.status || !strings.Contains(body, tt.want) {
					t.Errorf("stream %s: POST = %d %q, want %d holding %q", stream, status, body, tt.status, tt.want)
				}
			}
			if n := len(gen.received()); n != 0 {
				t.Errorf("generation requests = %d, want 0 after a failed context leg", n)
			}
		})
	}
}

func TestFrontGenerationDown(t *testing.T) {
	ctx := newFakeUpstream(t, contextAnswers)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	front := startFront(t, []string{ctx.URL}, []string{down.URL}, FrontOptions{})
	status, body := post(t, front.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`)
	if want := "generation server " + down.URL; status != http.StatusBadGateway || !strings.Contains(body, want) {
		t.Errorf("POST = %d %q, want 502 naming %q", status, body, want)
	}
}

func TestFrontRefusesBadRequests(t *testing.T) {
	ctx := newFakeUpstream(t, contextAnswers)
	gen := newFakeUpstream(t, contextAnswers)
	front := startFront(t, []string{ctx.URL}, []string{gen.URL}, FrontOptions{})
	for _, body := range []string{`[1]`, `{"prompt":`, `{"stream":"yes"}`, `null`,
		`{"prompt":"x","disaggregated_params":{"request_type":"context_only"}}`} {
		if status, got := post(t, front.URL+"/v1/completions", body); status != http.StatusBadRequest || !strings.Contains(got, "invalid_request_error") {
			t.Errorf("POST %s = %d %q, want 400 invalid_request_error", body, status, got)
		}
	}
	if n := len(ctx.received()) + len(gen.received()); n != 0 {
		t.Errorf("requests relayed = %d, want 0", n)
	}
}

func TestFrontAPIKey(t *testing.T) {
	ctx := newFakeUpstream(t, contextAnswers)
	gen := newFakeUpstream(t, contextAnswers)
	front := startFront(t, []string{ctx.URL}, []string{gen.URL}, FrontOptions{APIKey: "sk-front"})
	if status, _ := post(t, front.URL+"/v1/completions", `{"prompt":"x"}`); status != http.StatusUnauthorized {
		t.Errorf("POST without a key = %d, want 401", status)
	}
	req, _ := http.NewRequest(http.MethodPost, front.URL+"/v1/completions", strings.NewReader(`{"prompt":"x"}`))
	req.Header.Set("Authorization", "Bearer sk-front")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("POST with the key = %d, want 200", resp.StatusCode)
	}
	for name, u := range map[string]*fakeUpstream{"context": ctx, "generation": gen} {
		if diff := cmp.Diff([]string{"Bearer sk-front"}, u.auths); diff != "" {
			t.Errorf("Authorization sent to the %s server (-want +got):\n%s", name, diff)
		}
	}
}

func TestFrontClientGoneCancelsContextLeg(t *testing.T) {
	arrived, cancelled := make(chan struct{}), make(chan struct{})
	ctx := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
		close(cancelled)
	})
	gen := newFakeUpstream(t, contextAnswers)
	front := startFront(t, []string{ctx.URL}, []string{gen.URL}, FrontOptions{})
	reqCtx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(reqCtx, http.MethodPost, front.URL+"/v1/completions", strings.NewReader(`{"prompt":"hi"}`))
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-arrived
	cancel()
	select {
	case <-cancelled: // the context leg's request ends with the client's
	case <-time.After(30 * time.Second):
		t.Fatal("the context leg still runs 30 s after its client went away")
	}
	<-done
	if n := len(gen.received()); n != 0 {
		t.Errorf("generation requests = %d, want 0 once the client went away", n)
	}
}
