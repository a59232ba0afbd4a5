package server

import (
	"encoding/json"
	"errors"
	"fmt"
)

// frontRoute is what differs between the front's two routes: the path
// the legs are sent to and the field that bounds the context leg to one
// token (TensorRT-LLM's disaggregated server sets max_tokens of a
// completion and max_completion_tokens of a chat request to 1,
// tensorrt_llm/serve/openai_disagg_server.py,
// _process_context_server_request).
type frontRoute struct {
	path      string
	maxTokens string
}

var (
	textRoute = frontRoute{path: "/v1/completions", maxTokens: "max_tokens"}
	chatRoute = frontRoute{path: "/v1/chat/completions", maxTokens: "max_completion_tokens"}
)

// frontRequest is a client's request as the front relays it: every field
// kept as sent, the ones the front reads parsed.
type frontRequest struct {
	fields map[string]json.RawMessage
	stream bool
}

// parseFrontRequest reads a client's request body: a JSON object whose
// stream, when present, is a bool, and that holds no disaggregated_params
// (the front sets them). The servers check the rest.
func parseFrontRequest(body []byte) (frontRequest, error) {
	var req frontRequest
	if err := json.Unmarshal(body, &req.fields); err != nil {
		return req, fmt.Errorf("parsing the request body: %w", err)
	}
	if req.fields == nil {
		return req, errors.New("parsing the request body: want a JSON object")
	}
	if raw, ok := req.fields["stream"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &req.stream); err != nil {
			return req, fmt.Errorf("stream: want true or false: %w", err)
		}
	}
	if _, ok := req.fields["disaggregated_params"]; ok {
		return req, errors.New("disaggregated_params: the front sets them; send the request without")
	}
	return req, nil
}

// with returns the request's body with fields set (a nil value deletes
// the field).
func (r frontRequest) with(set map[string]any) ([]byte, error) {
	out := make(map[string]any, len(r.fields)+len(set))
	for k, v := range r.fields {
		out[k] = v
	}
	for k, v := range set {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return json.Marshal(out)
}

// contextBody is the context leg's request: one token, not streamed,
// context_only.
func (r frontRequest) contextBody(route *frontRoute) ([]byte, error) {
	return r.with(map[string]any{
		route.maxTokens: 1, "stream": false, "stream_options": nil,
		"disaggregated_params": DisaggParams{RequestType: RequestContextOnly},
	})
}

// generationBody is the generation leg's request: the client's, with the
// context server's disaggregated_params as generation_only.
func (r frontRequest) generationBody(p DisaggParams) ([]byte, error) {
	p.RequestType = RequestGenerationOnly
	return r.with(map[string]any{"disaggregated_params": p})
}

// contextAnswer is what the front reads of a context server's answer.
type contextAnswer struct {
	Choices []struct {
		DisaggregatedParams *DisaggParams `json:"disaggregated_params"`
	} `json:"choices"`
}

// paramsOf reads the disaggregated_params of a context server's answer:
// one choice holding them, with the first token and ctx_request_id.
func paramsOf(body []byte) (DisaggParams, error) {
	var a contextAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return DisaggParams{}, fmt.Errorf("reading its answer: %w", err)
	}
	if len(a.Choices) != 1 {
		return DisaggParams{}, fmt.Errorf("its answer has %d choices, want 1", len(a.Choices))
	}
	p := a.Choices[0].DisaggregatedParams
	if p == nil {
		return DisaggParams{}, errors.New("its answer has no disaggregated_params: is it a kvctl serve --server-role context?")
	}
	if p.CtxRequestID == nil || len(p.FirstGenTokens) == 0 {
		return DisaggParams{}, errors.New("its disaggregated_params lack ctx_request_id or first_gen_tokens")
	}
	return *p, nil
}
