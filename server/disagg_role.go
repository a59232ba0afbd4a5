package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/kvctl/kvctl/engine"
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

// fetchKV takes a generation_only request's KV from the context server
// at its ctx_info_endpoint before it is submitted; nil for other
// requests, and for one without ctx_info_endpoint, whose prompt the
// engine prefills again (loading from the pool what the context server
// saved there when they share one). A failure is answered as
// DISAGG_TRANS_ERROR.
func (c *completions) fetchKV(w http.ResponseWriter, r *http.Request, req parsedRequest) (*engine.KVBlocks, bool) {
	p := req.disagg
	if p == nil || p.RequestType != RequestGenerationOnly || p.CtxInfoEndpoint == "" {
		return nil, true
	}
	kv, err := c.kv.fetch(r.Context(), p.CtxInfoEndpoint, *p.CtxRequestID, r.Header.Get("Authorization"))
	if err != nil {
		c.fail(w, err)
		return nil, false
	}
	return kv, true
}

// submitOptions are the engine's ends of a disaggregated request's KV
// transfer: a context_only request's KV held under its ctx_request_id
// seq, a generation_only request's received KV.
func submitOptions(req parsedRequest, seq int64, kv *engine.KVBlocks) engine.SubmitOptions {
	if req.disagg != nil && req.disagg.RequestType == RequestContextOnly {
		return engine.SubmitOptions{HoldAs: holdName(seq)}
	}
	return engine.SubmitOptions{KV: kv}
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
	return &DisaggParams{RequestType: RequestContextOnly, FirstGenTokens: out[:1], CtxRequestID: &id}, nil
}
