package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// The roles of a server in a disaggregated deployment (Options.Role; ""
// serves plain requests only).
const (
	// RoleContext answers context_only requests: the prefill and the
	// first token, with the disaggregated_params a generation server
	// needs.
	RoleContext = "context"
	// RoleGeneration answers generation_only requests: it decodes from
	// the context server's first token.
	RoleGeneration = "generation"
)

// KVHandoff moves a disaggregated request's KV from the context server
// that computed it to the generation server that decodes it.
type KVHandoff interface {
	// Hold keeps the KV of the context_only request id, whose prompt is
	// tokens, for a generation server to take.
	Hold(id int64, tokens []int64) error
	// Fetch brings the KV of request id of the context server at
	// endpoint (ctx_info_endpoint) to this server before its
	// generation_only request decodes.
	Fetch(ctx context.Context, endpoint string, id int64, tokens []int64) error
}

// PoolHandoff is the KVHandoff of today's servers: nothing moves between
// them. The generation server's engine prefills the prompt again, loading
// from the pool what the context server saved there when they share one
// (--pool redis://...), then decodes from the context server's first
// token.
type PoolHandoff struct{}

// Hold keeps nothing: the context server's saves are in the pool.
func (PoolHandoff) Hold(int64, []int64) error { return nil }

// Fetch fetches nothing: the engine loads or computes the prompt's KV.
func (PoolHandoff) Fetch(context.Context, string, int64, []int64) error { return nil }

// checkRole refuses a request type the server's role does not serve and
// settles a context_only request to one token.
func (c *completions) checkRole(req *parsedRequest) error {
	if req.disagg == nil || req.disagg.RequestType == RequestContextAndGeneration {
		return nil
	}
	want := map[string]string{RequestContextOnly: RoleContext, RequestGenerationOnly: RoleGeneration}[req.disagg.RequestType]
	if c.role != want {
		return fmt.Errorf("disaggregated_params.request_type %s: this server does not serve it; start it with --server-role %s", req.disagg.RequestType, want)
	}
	if req.disagg.RequestType == RequestContextOnly {
		if req.stream {
			return errors.New("disaggregated_params.request_type context_only: the answer does not stream; send stream false")
		}
		req.maxTokens = 1
	}
	return nil
}

// fetchKV brings a generation_only request's KV before it is submitted;
// a failure is answered as a KV transfer error.
func (c *completions) fetchKV(w http.ResponseWriter, r *http.Request, req parsedRequest) bool {
	p := req.disagg
	if p == nil || p.RequestType != RequestGenerationOnly {
		return true
	}
	if err := c.handoff.Fetch(r.Context(), p.CtxInfoEndpoint, *p.CtxRequestID, req.tokens); err != nil {
		writeError(w, http.StatusBadGateway, fmt.Sprintf("receiving the KV of ctx_request_id %d from %q: %v", *p.CtxRequestID, p.CtxInfoEndpoint, err), "kv_transfer_error")
		return false
	}
	return true
}

// firstToken is the token a generation_only request starts with, nil for
// other requests.
func firstToken(req parsedRequest) *int64 {
	if req.disagg == nil || req.disagg.RequestType != RequestGenerationOnly {
		return nil
	}
	return &req.disagg.FirstGenTokens[0]
}

// contextParams are the disaggregated_params of a context_only request's
// answer, its KV held under id; nil for other requests.
func (c *completions) contextParams(req parsedRequest, id int64, out []int64) (*DisaggParams, error) {
	if req.disagg == nil || req.disagg.RequestType != RequestContextOnly {
		return nil, nil
	}
	if len(out) == 0 {
		return nil, errors.New("the context_only request ended without its first token")
	}
	if err := c.handoff.Hold(id, req.tokens); err != nil {
		return nil, fmt.Errorf("holding the KV of ctx_request_id %d: %w", id, err)
	}
	return &DisaggParams{RequestType: RequestContextOnly, FirstGenTokens: out[:1], CtxRequestID: &id}, nil
}
