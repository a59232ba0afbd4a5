package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// DefaultMaxTokens is max_tokens when a request leaves it out (OpenAI's
// default for completions; chat requests take it too).
const DefaultMaxTokens = 16

// maxBody bounds a request body.
const maxBody = 16 << 20

// requestCommon holds the fields completion and chat requests share.
type requestCommon struct {
	Model         string `json:"model"`
	MaxTokens     *int   `json:"max_tokens"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	DisaggregatedParams json.RawMessage `json:"disaggregated_params"`
}

// parsed validates the shared fields and returns the request with tokens.
func (r requestCommon) parsed(tokens []int64, maxTokens *int) (parsedRequest, error) {
	p := parsedRequest{model: r.Model, tokens: tokens, maxTokens: DefaultMaxTokens, stream: r.Stream}
	if maxTokens != nil {
		p.maxTokens = *maxTokens
	}
	if p.maxTokens < 1 {
		return parsedRequest{}, fmt.Errorf("max_tokens %d: want at least 1", p.maxTokens)
	}
	p.includeUsage = r.StreamOptions != nil && r.StreamOptions.IncludeUsage
	var err error
	p.disagg, err = parseDisaggParams(r.DisaggregatedParams)
	return p, err
}

// completionRequest is the subset of an OpenAI completion request the
// server reads; other fields (temperature, top_p, ...) are ignored.
type completionRequest struct {
	requestCommon
	Prompt json.RawMessage `json:"prompt"`
}

// parsedRequest is a validated completion or chat request.
type parsedRequest struct {
	model        string
	tokens       []int64
	maxTokens    int
	stream       bool
	includeUsage bool
	disagg       *DisaggParams // nil: a plain request
}

// parseCompletionRequest reads and validates a completion request body.
func parseCompletionRequest(body []byte) (parsedRequest, error) {
	var req completionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return parsedRequest{}, fmt.Errorf("parsing the request body: %w", err)
	}
	tokens, err := parsePrompt(req.Prompt)
	if err != nil {
		return parsedRequest{}, err
	}
	return req.parsed(tokens, req.MaxTokens)
}

// parsePrompt tokenizes a prompt: a string byte by byte (Tokenize), an
// array of token ids, or an array holding one string.
func parsePrompt(raw json.RawMessage) ([]int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("prompt is required")
	}
	var text string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, fmt.Errorf("prompt: %w", err)
		}
		return Tokenize(text), nil
	}
	var ids []int64
	if err := json.Unmarshal(raw, &ids); err == nil {
		return ids, nil
	}
	var texts []string
	if err := json.Unmarshal(raw, &texts); err != nil || len(texts) != 1 {
		return nil, errors.New("prompt: want a string, an array of token ids or an array of one string")
	}
	return Tokenize(texts[0]), nil
}

// Tokenize is the server's byte-level tokenizer: each byte b of s's
// UTF-8 encoding is token id b.
func Tokenize(s string) []int64 {
	out := make([]int64, len(s))
	for i := range len(s) {
		out[i] = int64(s[i])
	}
	return out
}

// Detokenize renders generated token ids as text: one lowercase letter
// per token, 'a' + id mod 26 (a negative id counts from the end).
func Detokenize(ids []int64) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		m := id % 26
		if m < 0 {
			m += 26
		}
		b[i] = byte('a' + m)
	}
	return string(b)
}

// usage is OpenAI's usage object.
type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// choice is one choice of a completion or a completion chunk.
type choice struct {
	Text         string  `json:"text"`
	Index        int     `json:"index"`
	Logprobs     *int    `json:"logprobs"` // always null
	FinishReason *string `json:"finish_reason"`
	// DisaggregatedParams is a context server's answer to a context_only
	// request (TensorRT-LLM's CompletionResponseChoice has it too).
	DisaggregatedParams *DisaggParams `json:"disaggregated_params,omitempty"`
}

// completion is a completion, or a chunk of a streamed one (the same
// object, "text_completion", in OpenAI's API).
type completion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
}

// apiError is OpenAI's error body.
type apiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func newAPIError(msg, typ string) apiError {
	var e apiError
	e.Error.Message, e.Error.Type = msg, typ
	return e
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg, typ string) {
	writeJSON(w, status, newAPIError(msg, typ))
}
