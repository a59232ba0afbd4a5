package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAPIKey checks which paths require Options.APIKey and how a refusal
// looks.
func TestAPIKey(t *testing.T) {
	ts := startServer(t, func(o *Options) { o.APIKey = "sk-test" })
	const completion = `{"prompt":"hi","max_tokens":2}`
	const chat = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}`
	tests := []struct {
		method, path, body, auth string
		want                     int
	}{
		{"POST", "/v1/completions", completion, "", 401},
		{"POST", "/v1/completions", completion, "Bearer sk-wrong", 401},
		{"POST", "/v1/completions", completion, "Basic sk-test", 401},
		{"POST", "/v1/completions", completion, "sk-test", 401},
		{"POST", "/v1/completions", completion, "Bearer sk-test", 200},
		{"POST", "/v1/completions", completion, "bearer sk-test", 200},
		{"POST", "/v1/chat/completions", chat, "", 401},
		{"POST", "/v1/chat/completions", chat, "Bearer sk-test", 200},
		{"GET", "/v1/models", "", "", 401},
		{"GET", "/v1/models", "", "Bearer sk-test", 200},
		{"GET", "/query_key?key=absent", "", "", 401},
		{"GET", "/query_key?key=absent", "", "Bearer sk-test", 404},
		{"GET", "/healthz", "", "", 200},
		{"GET", "/metrics", "", "", 200},
		{"GET", "/get_all_keys", "", "", 200},
		{"GET", "/batch_query_keys?keys=a", "", "", 200},
		{"GET", "/get_segments_detail", "", "", 200},
		{"GET", "/health", "", "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path+" "+tt.auth, func(t *testing.T) {
			status, hdr, b := ts.do(t, tt.method, tt.path, tt.body, tt.auth)
			if status != tt.want {
				t.Fatalf("%s %s with Authorization %q = %d %s, want %d", tt.method, tt.path, tt.auth, status, b, tt.want)
			}
			if status != http.StatusUnauthorized {
				return
			}
			var e apiError
			if err := json.Unmarshal(b, &e); err != nil || e.Error.Type != "invalid_request_error" || e.Error.Code == nil ||
				*e.Error.Code != "invalid_api_key" || e.Error.Message == "" || hdr.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("401 body = %s, WWW-Authenticate %q; want an invalid_api_key error and a Bearer challenge", b, hdr.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestNoAPIKeyOpensEverything(t *testing.T) {
	ts := startServer(t, nil)
	for _, path := range []string{"/v1/models", "/query_key?key=absent"} {
		if status, _, b := ts.do(t, "GET", path, "", ""); status == http.StatusUnauthorized {
			t.Errorf("GET %s without a server key = %d %s, want no 401", path, status, b)
		}
	}
}

// do sends a request with an optional Authorization header.
func (ts *testServer) do(t *testing.T, method, path, body, auth string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}
