package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe to write from the server's goroutine
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeHTTP runs kvctl serve without a trace: it listens, answers a
// completion and a Mooncake admin query, and when its context ends, as on
// Ctrl-C, shuts down gracefully and exits 130 saying it was interrupted.
func TestServeHTTP(t *testing.T) {
	base, errOut, code, cancel := startServeHTTP(t, "serve", "--single-rank", "--addr", "127.0.0.1:0")

	body := `{"model": "kvctl-serve", "prompt": "a prompt long enough to fill one block of thirty-two bytes", "max_tokens": 4}`
	resp, err := http.Post(base+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Choices []struct{ Text string } `json:"choices"`
		Usage   struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST /v1/completions = %d, %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	if got.Usage.CompletionTokens != 4 || len(got.Choices) != 1 || len(got.Choices[0].Text) != 4 {
		t.Errorf("completion = %+v, want 4 tokens of text", got)
	}
	resp, err = http.Get(base + "/get_all_keys")
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(keys), "kvctl-serve/w1r0/lg0/t32b") {
		t.Errorf("GET /get_all_keys = %q, want the saved page keys", keys)
	}
	cancel()
	select {
	case c := <-code:
		if c != ExitInterrupted || !strings.HasSuffix(errOut.String(), "kvctl: interrupted\n") {
			t.Errorf("serve after shutdown = exit %d, want %d and \"kvctl: interrupted\"; stderr: %s", c, ExitInterrupted, errOut)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not shut down")
	}
}

// startServeHTTP runs kvctl with args (a serve that listens) in the
// background and waits until it listens: its base URL, its stderr, the
// channel its exit code comes on, and the cancel that stops it as Ctrl-C
// does (also called when the test ends).
func startServeHTTP(t *testing.T, args ...string) (base string, errOut *lockedBuffer, code chan int, cancel func()) {
	t.Helper()
	ios, _, _ := NewTestIOStreams("")
	errOut = &lockedBuffer{}
	ios.ErrOut = errOut
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	code = make(chan int, 1)
	go func() { code <- run(ctx, ios, args) }()
	return waitListening(t, errOut), errOut, code, cancel
}

func waitListening(t *testing.T, errOut *lockedBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(errOut.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("serve never said it was listening; stderr: %s", errOut)
	return ""
}

func TestServeAPIKey(t *testing.T) {
	tests := []struct {
		flag, env, want string
	}{
		{"", "", ""},
		{"", "sk-env", "sk-env"},
		{"sk-flag", "sk-env", "sk-flag"},
		{"sk-flag", "", "sk-flag"},
	}
	for _, tt := range tests {
		ios, _, _ := NewTestIOStreams("")
		ios.Getenv = func(k string) string {
			if k == "KVCTL_API_KEY" {
				return tt.env
			}
			return ""
		}
		o := &serveOptions{APIKey: tt.flag}
		if got := o.apiKey(ios); got != tt.want {
			t.Errorf("apiKey(--api-key %q, $KVCTL_API_KEY %q) = %q, want %q", tt.flag, tt.env, got, tt.want)
		}
	}
}
