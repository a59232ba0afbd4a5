package server

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
)

// The routing policies of the disaggregated front, over the context
// servers and over the generation servers, each apart.
const (
	// RouteRoundRobin takes the servers in turn (TensorRT-LLM's
	// RoundRobinRouter, tensorrt_llm/serve/router.py).
	RouteRoundRobin = "round-robin"
	// RouteLeastLoaded takes the server with the fewest requests in
	// flight through the front, the first in turn among equals
	// (TensorRT-LLM's LoadBalancingRouter by requests).
	RouteLeastLoaded = "least-loaded"
)

// ParseUpstream checks the URL of a context or generation server and
// returns it as the front uses it: scheme http or https (http when left
// out, as in TensorRT-LLM's disaggregated config "localhost:8001"), a
// host with a port, no query, no trailing slash; the path stays escaped
// as given, so that the answer parses to itself.
func ParseUpstream(s string) (string, error) {
	raw := strings.TrimSpace(s)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("server URL %q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("server URL %q: scheme %q: want http or https", s, u.Scheme)
	}
	if u.Hostname() == "" || u.Port() == "" {
		return "", fmt.Errorf("server URL %q: want HOST:PORT, e.g. 127.0.0.1:8001", s)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("server URL %q: want no user, query or fragment", s)
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// router picks one of a role's servers per request and counts the
// requests in flight on each.
type router struct {
	urls     []string
	policy   string
	mu       sync.Mutex
	next     int
	inFlight []int
}

func newRouter(urls []string, policy string) (*router, error) {
	if len(urls) == 0 {
		return nil, fmt.Errorf("no servers")
	}
	if policy != RouteRoundRobin && policy != RouteLeastLoaded {
		return nil, fmt.Errorf("routing %q: want %s or %s", policy, RouteRoundRobin, RouteLeastLoaded)
	}
	return &router{urls: urls, policy: policy, inFlight: make([]int, len(urls))}, nil
}

// pick chooses a server and counts a request in flight on it until
// release is called.
func (r *router) pick() (url string, release func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := r.next
	if r.policy == RouteLeastLoaded {
		for k := range r.urls {
			j := (r.next + k) % len(r.urls)
			if r.inFlight[j] < r.inFlight[i] {
				i = j
			}
		}
	}
	r.next = (i + 1) % len(r.urls)
	r.inFlight[i]++
	var once sync.Once
	return r.urls[i], func() {
		once.Do(func() {
			r.mu.Lock()
			r.inFlight[i]--
			r.mu.Unlock()
		})
	}
}
