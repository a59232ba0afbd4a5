package cmd

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeDisaggHTTP runs kvctl serve --disagg over HTTP: the front on
// --addr answers completions and chat, whole and streamed, through the
// context and generation servers it started, whose KV moved between them;
// on Ctrl-C all stop and serve exits 130.
func TestServeDisaggHTTP(t *testing.T) {
	base, errOut, code, cancel := startServeHTTP(t, "serve", "--single-rank", "--disagg", "ctx=1,gen=2", "--addr", "127.0.0.1:0")
	m := regexp.MustCompile(`\(context (\S+); generation (\S+),(\S+); round-robin\)`).FindStringSubmatch(errOut.String())
	if m == nil {
		t.Fatalf("serve's listening line names no context and two generation servers; stderr: %s", errOut)
	}
	prompt := `"a prompt long enough to fill a few blocks of the kv cache, if not more"`
	for _, tt := range []struct{ path, body, want string }{
		{"/v1/completions", `{"prompt":` + prompt + `,"max_tokens":5}`, `"text":"[a-z]{5}"`},
		{"/v1/completions", `{"prompt":` + prompt + `,"max_tokens":3,"stream":true}`, `(?s)("text":"[a-z]".*){3}data: \[DONE\]`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":4}`, `"content":"[a-z]{4}"`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":4,"stream":true}`, `(?s)("delta":\{"content":"[a-z]"\}.*){4}data: \[DONE\]`},
	} {
		if got := post(t, base+tt.path, tt.body); !regexp.MustCompile(tt.want).MatchString(got) {
			t.Errorf("POST %s %s = %s, want it to match %s", tt.path, tt.body, got, tt.want)
		}
	}
	for _, tt := range []struct{ url, want string }{
		{base + "/healthz", `"status":"ok"`},
		{base + "/v1/models", `"id":"kvctl-serve"`},
		{base + "/metrics", `kvctl_disagg_leg_requests_total{leg="generation",outcome="ok",server="` + m[2] + `"} 2`},
		{m[1] + "/metrics", "\nkvctl_disagg_kv_sent_total 4\n"},
		{m[2] + "/metrics", "\nkvctl_disagg_kv_received_total 2\n"},
		{m[3] + "/metrics", "\nkvctl_disagg_kv_received_total 2\n"},
	} {
		if got := get(t, tt.url); !strings.Contains(got, tt.want) {
			t.Errorf("GET %s = %s, want it to hold %s", tt.url, got, tt.want)
		}
	}
	cancel()
	waitExit(t, code, ExitInterrupted, errOut)
	if !strings.Contains(errOut.String(), "generation server 2: shutting down") {
		t.Errorf("stderr = %s, want every server to shut down", errOut)
	}
}

// TestServeDisaggHTTPStartFails runs kvctl serve --disagg over HTTP on an
// address in use: the front cannot listen, so the servers already started
// stop, and serve exits 1 saying why.
func TestServeDisaggHTTPStartFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ios, _, _ := NewTestIOStreams("")
	errOut := &lockedBuffer{}
	ios.ErrOut = errOut
	code := make(chan int, 1)
	go func() {
		code <- run(context.Background(), ios, []string{"serve", "--single-rank", "--disagg", "ctx=1,gen=1", "--addr", ln.Addr().String()})
	}()
	waitExit(t, code, ExitFailure, errOut)
	if !strings.Contains(errOut.String(), "disaggregated front: listening on") {
		t.Errorf("stderr = %s, want the front's listen error", errOut)
	}
}

func waitExit(t *testing.T, code <-chan int, want int, errOut *lockedBuffer) {
	t.Helper()
	select {
	case c := <-code:
		if c != want {
			t.Errorf("serve = exit %d, want %d; stderr: %s", c, want, errOut)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("serve did not stop; stderr: %s", errOut)
	}
}

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	return readBody(t, resp, err)
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	return readBody(t, resp, err)
}

func readBody(t *testing.T, resp *http.Response, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
