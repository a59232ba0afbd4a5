package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// prompt100 is a 100-byte prompt: 100 tokens, 6 whole blocks at T=16.
var prompt100 = strings.Repeat("kv cache! ", 10)

func TestCompletion(t *testing.T) {
	ts := startServer(t, nil)
	body := `{"model":"test-model","prompt":"` + prompt100 + `","max_tokens":7,"temperature":0.5}`
	first := ts.complete(t, body)
	second := ts.complete(t, body)
	if len(first.Choices) != 1 || len(first.Choices[0].Text) != 7 || strings.Trim(first.Choices[0].Text, "abcdefghijklmnopqrstuvwxyz") != "" {
		t.Fatalf("choices = %+v, want one of 7 lowercase letters", first.Choices)
	}
	if first.Choices[0].Text != second.Choices[0].Text {
		t.Errorf("texts of equal prompts = %q and %q, want equal", first.Choices[0].Text, second.Choices[0].Text)
	}
	if r := first.Choices[0].FinishReason; r == nil || *r != "length" {
		t.Errorf("finish_reason = %v, want length", r)
	}
	want := usage{PromptTokens: 100, CompletionTokens: 7, TotalTokens: 107}
	if diff := cmp.Diff(&want, first.Usage); diff != "" {
		t.Errorf("usage of the first request (-want +got):\n%s", diff)
	}
	want.PromptTokensDetails.CachedTokens = 96
	if diff := cmp.Diff(&want, second.Usage); diff != "" {
		t.Errorf("usage of the repeated request (-want +got):\n%s", diff)
	}
	if first.Object != "text_completion" || first.Model != "test-model" || !strings.HasPrefix(first.ID, "cmpl-") {
		t.Errorf("completion = %+v, want a text_completion of test-model with a cmpl- id", first)
	}
}

func TestCompletionPrompts(t *testing.T) {
	ts := startServer(t, nil)
	// "ab" tokenizes to [97, 98]: the three prompts are the same
	var texts []string
	for _, p := range []string{`"ab"`, `[97, 98]`, `["ab"]`} {
		c := ts.complete(t, `{"prompt":`+p+`,"max_tokens":4}`)
		if c.Usage.PromptTokens != 2 {
			t.Errorf("prompt %s: prompt_tokens = %d, want 2", p, c.Usage.PromptTokens)
		}
		texts = append(texts, c.Choices[0].Text)
	}
	if texts[0] != texts[1] || texts[1] != texts[2] {
		t.Errorf("texts of equal prompts = %q, want equal", texts)
	}
	if c := ts.complete(t, `{"prompt":"x"}`); c.Usage.CompletionTokens != DefaultMaxTokens {
		t.Errorf("completion_tokens without max_tokens = %d, want %d", c.Usage.CompletionTokens, DefaultMaxTokens)
	}
}

// TestCompletionStream checks OpenAI's stream shape without --real-time:
// one chunk per token, finish_reason on the last, usage only in a final
// chunk with no choices and only when stream_options.include_usage asks.
func TestCompletionStream(t *testing.T) {
	ts := startServer(t, nil)
	whole := ts.complete(t, `{"prompt":"`+prompt100+`","max_tokens":9}`)
	for _, includeUsage := range []bool{false, true} {
		body := fmt.Sprintf(`{"prompt":"%s","max_tokens":9,"stream":true,"stream_options":{"include_usage":%v}}`, prompt100, includeUsage)
		s := ts.stream(t, "/v1/completions", body)
		if !s.done {
			t.Errorf("stream (include_usage %v) did not end with [DONE]", includeUsage)
		}
		if s.text != whole.Choices[0].Text {
			t.Errorf("streamed text = %q, want %q", s.text, whole.Choices[0].Text)
		}
		tokens := s.chunks
		if includeUsage {
			last := s.chunks[len(s.chunks)-1]
			if len(last.Choices) != 0 || last.Usage == nil || last.Usage.PromptTokensDetails.CachedTokens != 96 || last.Usage.CompletionTokens != 9 {
				t.Errorf("last chunk = %+v, want usage (9 completion tokens, 96 cached) and no choices", last)
			}
			tokens = s.chunks[:len(s.chunks)-1]
		}
		if len(tokens) != 9 {
			t.Fatalf("stream (include_usage %v) sent %d chunks of tokens, want 9, one per token", includeUsage, len(tokens))
		}
		for i, c := range tokens {
			wantFinish := i == len(tokens)-1
			if len(c.Choices) != 1 || len(c.Choices[0].Text) != 1 || (c.Choices[0].FinishReason != nil) != wantFinish || c.Usage != nil {
				t.Errorf("chunk %d = %+v, want one letter, no usage, finish_reason only on the last", i, c)
			}
		}
		if r := tokens[len(tokens)-1].Choices[0].FinishReason; r == nil || *r != "length" {
			t.Errorf("last token's finish_reason = %v, want length", r)
		}
	}
}

func TestCompletionErrors(t *testing.T) {
	ts := startServer(t, func(o *Options) { o.Engine.GPU.Blocks = 8 })
	tests := []struct {
		name, body string
		status     int
		errType    string
	}{
		{"not json", `{"prompt":`, 400, "invalid_request_error"},
		{"no prompt", `{"max_tokens":3}`, 400, "invalid_request_error"},
		{"prompt of numbers and text", `{"prompt":[1,"a"]}`, 400, "invalid_request_error"},
		{"zero max_tokens", `{"prompt":"a","max_tokens":0}`, 400, "invalid_request_error"},
		{"unknown model", `{"model":"gpt-4","prompt":"a"}`, 404, "invalid_request_error"},
		{"empty prompt", `{"prompt":""}`, 400, "invalid_request_error"},
		{"empty prompt streamed", `{"prompt":"","stream":true}`, 400, "invalid_request_error"},
		{"larger than the KV cache", `{"prompt":"a","max_tokens":200}`, 400, "invalid_request_error"},
		{"larger than the KV cache streamed", `{"prompt":"a","max_tokens":200,"stream":true}`, 400, "invalid_request_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b := ts.post(t, "/v1/completions", tt.body)
			var e apiError
			if err := json.Unmarshal(b, &e); err != nil || status != tt.status || e.Error.Type != tt.errType || e.Error.Message == "" {
				t.Errorf("POST %s = %d %s, want %d and an %s error body", tt.body, status, b, tt.status, tt.errType)
			}
		})
	}
	ts.complete(t, `{"prompt":"still serving","max_tokens":2}`)
}

func TestModelsAndHealth(t *testing.T) {
	ts := startServer(t, nil)
	tests := []struct {
		path, want string
	}{
		{"/v1/models", `"id":"test-model"`},
		{"/healthz", `{"status":"ok"}`},
		{"/health", `"status":"ok"`},
		{"/get_segments_detail", `"total_segments"`},
	}
	for _, tt := range tests {
		status, b := ts.get(t, tt.path)
		if status != http.StatusOK || !strings.Contains(string(b), tt.want) {
			t.Errorf("GET %s = %d %s, want 200 containing %s", tt.path, status, b, tt.want)
		}
	}
}

func TestClientDisconnectCancels(t *testing.T) {
	ts := startServer(t, func(o *Options) { o.RealTime = true })
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.url+"/v1/completions",
		strings.NewReader(`{"prompt":"a long one","max_tokens":5000,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST = %d, want 200", resp.StatusCode)
	}
	resp.Body.Read(make([]byte, 64)) // the first chunk
	cancel()
	resp.Body.Close()
	waitFor(t, "the request's cancellation", func() bool {
		_, b := ts.get(t, "/metrics")
		return metricValue(t, b, "kvctl_requests_cancelled_total") == 1 && metricValue(t, b, "kvctl_requests_running") == 0
	})
}
