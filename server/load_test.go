package server

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The load test runs against an in-process server, or against a running
// one with -load-url (bench/http_load.sh does that).
var (
	loadURL       = flag.String("load-url", "", "run TestLoad against the server at this base URL instead of an in-process one")
	loadRequests  = flag.Int("load-requests", 256, "TestLoad: requests in all")
	loadClients   = flag.Int("load-clients", 64, "TestLoad: concurrent streaming clients")
	loadMaxTokens = flag.Int("load-max-tokens", 16, "TestLoad: max_tokens of each request")
)

// loadResult is one streamed request of the load test.
type loadResult struct {
	ttft    time.Duration
	letters int
	cached  int
	err     error
}

func TestLoad(t *testing.T) {
	url := *loadURL
	if url == "" {
		url = startServer(t, nil).url
	}
	n, clients := *loadRequests, *loadClients
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	system := strings.Repeat("You are a helpful assistant. ", 20) // shared prefix, 580 bytes
	results := make([]loadResult, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				prompt := fmt.Sprintf("%sQuestion %d: how are you?", system, i)
				results[i] = streamOnce(client, url, prompt, *loadMaxTokens)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var ttfts []float64
	cached := 0
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("request %d: %v", i, r.err)
		}
		if r.letters != *loadMaxTokens {
			t.Fatalf("request %d streamed %d letters, want %d", i, r.letters, *loadMaxTokens)
		}
		ttfts = append(ttfts, float64(r.ttft)/float64(time.Millisecond))
		cached += r.cached
	}
	if cached == 0 {
		t.Errorf("no request had cached tokens, want the shared prefix reused")
	}
	slices.Sort(ttfts)
	at := func(q float64) float64 { return ttfts[int(q*float64(len(ttfts)-1))] }
	t.Logf("%d requests, %d clients, max_tokens %d: %.0f requests/s; TTFT p50 %.2f ms, p90 %.2f ms, p99 %.2f ms; %d cached prompt tokens",
		n, clients, *loadMaxTokens, float64(n)/elapsed.Seconds(), at(0.5), at(0.9), at(0.99), cached)
}

// streamOnce runs one streaming completion and times its first chunk.
func streamOnce(client *http.Client, url, prompt string, maxTokens int) loadResult {
	body, _ := json.Marshal(map[string]any{"prompt": prompt, "max_tokens": maxTokens, "stream": true,
		"stream_options": map[string]bool{"include_usage": true}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions", strings.NewReader(string(body)))
	if err != nil {
		return loadResult{err: err}
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return loadResult{err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return loadResult{err: fmt.Errorf("status %d", resp.StatusCode)}
	}
	return readLoadStream(resp, start)
}

// readLoadStream reads an event stream, timing its first chunk.
func readLoadStream(resp *http.Response, start time.Time) loadResult {
	var r loadResult
	dec := newEventReader(resp.Body)
	for {
		data, err := dec.next()
		if err != nil {
			return loadResult{err: fmt.Errorf("after %d letters: %w", r.letters, err)}
		}
		if r.ttft == 0 {
			r.ttft = time.Since(start)
		}
		if data == "[DONE]" {
			return r
		}
		var c completion
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return loadResult{err: fmt.Errorf("chunk %q: %w", data, err)}
		}
		for _, ch := range c.Choices {
			r.letters += len(ch.Text)
		}
		if c.Usage != nil && len(c.Choices) == 0 {
			r.cached = c.Usage.PromptTokensDetails.CachedTokens
		}
	}
}
