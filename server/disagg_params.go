package server

import (
	"encoding/json"
	"fmt"
)

// The request types of disaggregated_params, as TensorRT-LLM spells them
// (tensorrt_llm/serve/openai_protocol.py, DisaggregatedParams.request_type).
const (
	// RequestContextOnly asks a context server for the prefill and the
	// first token only; its answer carries the disaggregated_params a
	// generation server needs.
	RequestContextOnly = "context_only"
	// RequestGenerationOnly asks a generation server to decode from the
	// first token a context server made.
	RequestGenerationOnly = "generation_only"
	// RequestContextAndGeneration is a plain request: prefill and decode on
	// one server (the default when disaggregated_params is absent).
	RequestContextAndGeneration = "context_and_generation"
)

// DisaggParams is the disaggregated_params object of a request, and of a
// context server's choice, in the shape of TensorRT-LLM's
// DisaggregatedParams (tensorrt_llm/serve/openai_protocol.py): a context
// server answers a context_only request with the first token and the id
// under which it holds the request's KV; the front sends both to a
// generation server as a generation_only request.
type DisaggParams struct {
	// RequestType is context_only, generation_only or
	// context_and_generation.
	RequestType string `json:"request_type"`
	// FirstGenTokens holds the first token the context server generated.
	FirstGenTokens []int64 `json:"first_gen_tokens,omitempty"`
	// CtxRequestID names the request's KV on the context server.
	CtxRequestID *int64 `json:"ctx_request_id,omitempty"`
	// EncodedOpaqueState is the context server's transfer state, base64;
	// kvctl's servers send none and relay it unchanged.
	EncodedOpaqueState *string `json:"encoded_opaque_state,omitempty"`
	// DraftTokens are a speculative context server's draft tokens.
	DraftTokens []int64 `json:"draft_tokens,omitempty"`
	// CtxInfoEndpoint is where the context server that holds the KV is
	// reached; the front sets it to the context server's URL when the
	// context server left it out.
	CtxInfoEndpoint string `json:"ctx_info_endpoint,omitempty"`
}

// parseDisaggParams reads a request's disaggregated_params (nil when
// absent or null) and checks it: a known request_type, and for
// generation_only a ctx_request_id and one first token.
func parseDisaggParams(raw json.RawMessage) (*DisaggParams, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var p DisaggParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("disaggregated_params: %w", err)
	}
	switch p.RequestType {
	case RequestContextOnly, RequestContextAndGeneration:
	case RequestGenerationOnly:
		if p.CtxRequestID == nil {
			return nil, fmt.Errorf("disaggregated_params: generation_only needs ctx_request_id")
		}
		if len(p.FirstGenTokens) != 1 {
			return nil, fmt.Errorf("disaggregated_params: generation_only needs first_gen_tokens of one token, got %d", len(p.FirstGenTokens))
		}
	default:
		return nil, fmt.Errorf("disaggregated_params.request_type %q: want context_only, generation_only or context_and_generation", p.RequestType)
	}
	return &p, nil
}
