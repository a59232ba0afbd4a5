package server

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCompletionRequest(t *testing.T) {
	tests := []struct {
		name, body string
		want       parsedRequest
		wantErr    bool
	}{
		{"string prompt", `{"prompt":"hé","max_tokens":3}`, parsedRequest{tokens: []int64{104, 0xc3, 0xa9}, maxTokens: 3}, false},
		{"token ids", `{"model":"m","prompt":[1,-2,300000]}`, parsedRequest{model: "m", tokens: []int64{1, -2, 300000}, maxTokens: DefaultMaxTokens}, false},
		{"one string in an array", `{"prompt":["a"],"stream":true,"stream_options":{"include_usage":true}}`,
			parsedRequest{tokens: []int64{97}, maxTokens: DefaultMaxTokens, stream: true, includeUsage: true}, false},
		{"empty string", `{"prompt":""}`, parsedRequest{tokens: []int64{}, maxTokens: DefaultMaxTokens}, false},
		{"two strings", `{"prompt":["a","b"]}`, parsedRequest{}, true},
		{"null prompt", `{"prompt":null}`, parsedRequest{}, true},
		{"object prompt", `{"prompt":{}}`, parsedRequest{}, true},
		{"fractional id", `{"prompt":[1.5]}`, parsedRequest{}, true},
		{"negative max_tokens", `{"prompt":"a","max_tokens":-1}`, parsedRequest{}, true},
		{"not an object", `[1]`, parsedRequest{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCompletionRequest([]byte(tt.body))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseCompletionRequest(%s) error = %v, want error %v", tt.body, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(parsedRequest{})); diff != "" {
				t.Errorf("parseCompletionRequest(%s) (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

func TestDetokenize(t *testing.T) {
	tests := []struct {
		ids  []int64
		want string
	}{
		{nil, ""},
		{[]int64{0, 1, 25, 26, 127999}, "abzab"},
		{[]int64{-1}, "z"},
	}
	for _, tt := range tests {
		if got := Detokenize(tt.ids); got != tt.want {
			t.Errorf("Detokenize(%v) = %q, want %q", tt.ids, got, tt.want)
		}
	}
}

func FuzzParseCompletionRequest(f *testing.F) {
	for _, seed := range []string{`{"prompt":"hi","max_tokens":2}`, `{"prompt":[1,2],"stream":true}`, `{"prompt":["x"]}`, `{}`, `{"prompt":`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parseCompletionRequest(body)
		if err != nil {
			return
		}
		if req.maxTokens < 1 || req.tokens == nil {
			t.Errorf("parseCompletionRequest(%q) = %+v, want max_tokens >= 1 and tokens", body, req)
		}
		if len(Detokenize(req.tokens)) != len(req.tokens) {
			t.Errorf("Detokenize of %d tokens has another length", len(req.tokens))
		}
	})
}
