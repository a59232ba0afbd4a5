package server

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// healthTimeout bounds the front's probe of one server's /healthz.
const healthTimeout = 2 * time.Second

// frontHealth is the front's /healthz answer: each server's state, "ok"
// or why not.
type frontHealth struct {
	Status     string            `json:"status"`
	Context    map[string]string `json:"context"`
	Generation map[string]string `json:"generation"`
}

// healthz probes every server's /healthz: 200 while at least one context
// and one generation server answer 200, else 503; the body says each
// server's state.
func (f *front) healthz(w http.ResponseWriter, r *http.Request) {
	h := frontHealth{Status: "ok", Context: f.probeAll(r.Context(), f.ctx.urls), Generation: f.probeAll(r.Context(), f.gen.urls)}
	status := http.StatusOK
	if !anyOK(h.Context) || !anyOK(h.Generation) {
		h.Status, status = "unavailable", http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
}

// probeAll probes the servers at once.
func (f *front) probeAll(ctx context.Context, urls []string) map[string]string {
	out := make(map[string]string, len(urls))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, u := range urls {
		wg.Go(func() {
			state := f.probe(ctx, u)
			mu.Lock()
			out[u] = state
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// probe is one server's state: "ok", its status, or the error reaching it.
func (f *front) probe(ctx context.Context, url string) string {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/healthz", nil)
	if err != nil {
		return err.Error()
	}
	resp, err := f.opts.Client.Do(req)
	if err != nil {
		return err.Error()
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.Status
	}
	return "ok"
}

func anyOK(states map[string]string) bool {
	for _, s := range states {
		if s == "ok" {
			return true
		}
	}
	return false
}
