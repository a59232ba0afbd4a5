package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestFrontHealthz(t *testing.T) {
	ok := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	stopping := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	tests := []struct {
		name     string
		ctx, gen []string
		status   int
		want     frontHealth
	}{
		{"one of each answers", []string{ok.URL, stopping.URL}, []string{ok.URL}, http.StatusOK,
			frontHealth{Status: "ok", Context: map[string]string{ok.URL: "ok", stopping.URL: "503 Service Unavailable"}, Generation: map[string]string{ok.URL: "ok"}}},
		{"no generation server answers", []string{ok.URL}, []string{stopping.URL}, http.StatusServiceUnavailable,
			frontHealth{Status: "unavailable", Context: map[string]string{ok.URL: "ok"}, Generation: map[string]string{stopping.URL: "503 Service Unavailable"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front := startFront(t, tt.ctx, tt.gen, FrontOptions{APIKey: "sk-open-health"})
			status, body := get(t, front.URL+"/healthz")
			var got frontHealth
			if err := json.Unmarshal([]byte(body), &got); err != nil || status != tt.status {
				t.Fatalf("GET /healthz = %d %q, want %d", status, body, tt.status)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GET /healthz (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFrontMetricsCountLegs(t *testing.T) {
	ctx := newFakeUpstream(t, contextAnswers)
	gen := newFakeUpstream(t, streamEvents(`{"choices":[{"text":"a"}]}`))
	failing := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusBadRequest, "prompt is required", "invalid_request_error")
	})
	front := startFront(t, []string{ctx.URL, failing.URL}, []string{gen.URL}, FrontOptions{})
	for range 4 { // round-robin: two over ctx, two over failing
		post(t, front.URL+"/v1/completions", `{"prompt":"hi","stream":true}`)
	}
	_, body := get(t, front.URL+"/metrics")
	for _, want := range []string{
		`kvctl_disagg_leg_requests_total{leg="context",outcome="ok",server="` + ctx.URL + `"} 2`,
		`kvctl_disagg_leg_requests_total{leg="context",outcome="400",server="` + failing.URL + `"} 2`,
		`kvctl_disagg_leg_requests_total{leg="generation",outcome="ok",server="` + gen.URL + `"} 2`,
		`kvctl_disagg_leg_seconds_count{leg="context"} 2`,
		`kvctl_disagg_leg_seconds_count{leg="generation"} 2`,
		`kvctl_disagg_leg_in_flight{leg="generation",server="` + gen.URL + `"} 0`,
		`kvctl_disagg_ttft_seconds_count 2`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("GET /metrics lacks %q", want)
		}
	}
}

func TestFrontStreamFailsAfterFirstChunk(t *testing.T) {
	ctx := newFakeUpstream(t, contextAnswers)
	gen := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		ev := startEvents(w)
		ev.write("data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
		ev.flush()
		hangUp(w, r)
	})
	front := startFront(t, []string{ctx.URL}, []string{gen.URL}, FrontOptions{})
	status, body := post(t, front.URL+"/v1/completions", `{"prompt":"hi","stream":true}`)
	want := regexp.MustCompile(`^data: \{"choices":\[\{"text":"a"\}\]\}\n\ndata: \{"error":\{"message":"generation server \S+: .*\(after the first chunk\)","type":"upstream_unavailable"`)
	if status != http.StatusOK || !want.MatchString(body) || strings.Contains(body, "[DONE]") {
		t.Errorf("stream = %d %q, want 200, the chunk, then an error object and no [DONE]", status, body)
	}
}

func TestFrontModels(t *testing.T) {
	gen := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{"id": "kvctl-serve"}}})
	})
	front := startFront(t, []string{"http://127.0.0.1:1"}, []string{gen.URL}, FrontOptions{})
	if status, body := get(t, front.URL+"/v1/models"); status != http.StatusOK || !strings.Contains(body, `"id":"kvctl-serve"`) {
		t.Errorf("GET /v1/models = %d %q, want the generation server's", status, body)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	front = startFront(t, []string{"http://127.0.0.1:1"}, []string{down.URL}, FrontOptions{})
	if status, body := get(t, front.URL+"/v1/models"); status != http.StatusBadGateway || !strings.Contains(body, down.URL) {
		t.Errorf("GET /v1/models with the server down = %d %q, want 502 naming it", status, body)
	}
}
