package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseChatRequest(t *testing.T) {
	const sysUser = "<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
	tests := []struct {
		name, body string
		want       parsedRequest
		wantErr    bool
	}{
		{"strings", `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`,
			parsedRequest{model: "m", tokens: Tokenize(sysUser), maxTokens: DefaultMaxTokens}, false},
		{"content parts", `{"messages":[{"role":"system","content":[{"type":"text","text":"be "},{"type":"text","text":"brief"}]},{"role":"user","content":"hi"}],"max_tokens":3}`,
			parsedRequest{tokens: Tokenize(sysUser), maxTokens: 3}, false},
		{"max_completion_tokens wins", `{"messages":[{"role":"user","content":"x"}],"max_tokens":3,"max_completion_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`,
			parsedRequest{tokens: Tokenize("<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\n"), maxTokens: 5, stream: true, includeUsage: true}, false},
		{"null content", `{"messages":[{"role":"assistant","content":null}]}`,
			parsedRequest{tokens: Tokenize("<|im_start|>assistant\n<|im_end|>\n<|im_start|>assistant\n"), maxTokens: DefaultMaxTokens}, false},
		{"no messages", `{"model":"m"}`, parsedRequest{}, true},
		{"empty messages", `{"messages":[]}`, parsedRequest{}, true},
		{"unknown role", `{"messages":[{"role":"narrator","content":"x"}]}`, parsedRequest{}, true},
		{"no role", `{"messages":[{"content":"x"}]}`, parsedRequest{}, true},
		{"image part", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, parsedRequest{}, true},
		{"number content", `{"messages":[{"role":"user","content":3}]}`, parsedRequest{}, true},
		{"zero max_completion_tokens", `{"messages":[{"role":"user","content":"x"}],"max_completion_tokens":0}`, parsedRequest{}, true},
		{"not an object", `[1]`, parsedRequest{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseChatRequest([]byte(tt.body))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseChatRequest(%s) error = %v, want error %v", tt.body, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(parsedRequest{})); diff != "" {
				t.Errorf("parseChatRequest(%s) (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

func TestChatTemplate(t *testing.T) {
	tests := []struct {
		turns []ChatTurn
		want  string
	}{
		{nil, "<|im_start|>assistant\n"},
		{[]ChatTurn{{"user", "hi"}}, "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"},
		{[]ChatTurn{{"system", "s"}, {"user", "u"}, {"assistant", "a"}, {"user", "v"}},
			"<|im_start|>system\ns<|im_end|>\n<|im_start|>user\nu<|im_end|>\n<|im_start|>assistant\na<|im_end|>\n<|im_start|>user\nv<|im_end|>\n<|im_start|>assistant\n"},
	}
	for _, tt := range tests {
		if got := ChatTemplate(tt.turns); got != tt.want {
			t.Errorf("ChatTemplate(%v) = %q, want %q", tt.turns, got, tt.want)
		}
	}
}

// The types below mirror the OpenAI API reference's chat objects; the
// answers are decoded into them refusing unknown fields.

type oaUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type oaChatCompletion struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		Logprobs     any     `json:"logprobs"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *oaUsage `json:"usage"`
}

type oaChatChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		Logprobs     any     `json:"logprobs"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *oaUsage `json:"usage"`
}

// decodeStrict decodes data into v, refusing fields v does not have.
func decodeStrict(t *testing.T, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
}

const chatBody = `{"model":"test-model","messages":[{"role":"system","content":"` + "a system prompt long enough for a few blocks of sixteen tokens" + `"},{"role":"user","content":"hi"}]`

func TestChatCompletion(t *testing.T) {
	ts := startServer(t, nil)
	status, b := ts.post(t, "/v1/chat/completions", chatBody+`,"max_tokens":6}`)
	if status != http.StatusOK {
		t.Fatalf("POST /v1/chat/completions = %d %s, want 200", status, b)
	}
	var got oaChatCompletion
	decodeStrict(t, b, &got)
	if got.Object != "chat.completion" || !strings.HasPrefix(got.ID, "chatcmpl-") || got.Model != "test-model" || len(got.Choices) != 1 {
		t.Fatalf("chat completion = %s, want one choice of a chat.completion of test-model with a chatcmpl- id", b)
	}
	ch := got.Choices[0]
	if ch.Message.Role != "assistant" || ch.Message.Content == nil || len(*ch.Message.Content) != 6 || ch.FinishReason == nil || *ch.FinishReason != "length" {
		t.Errorf("choice = %s, want an assistant message of 6 letters, finish_reason length", b)
	}
	prompt := len(ChatTemplate([]ChatTurn{{"system", "a system prompt long enough for a few blocks of sixteen tokens"}, {"user", "hi"}}))
	if got.Usage == nil || got.Usage.PromptTokens != prompt || got.Usage.CompletionTokens != 6 || got.Usage.TotalTokens != prompt+6 {
		t.Errorf("usage = %+v, want %d prompt and 6 completion tokens", got.Usage, prompt)
	}
}

func TestChatStream(t *testing.T) {
	ts := startServer(t, nil)
	for _, includeUsage := range []bool{false, true} {
		body := chatBody + `,"max_completion_tokens":7,"stream":true` + map[bool]string{true: `,"stream_options":{"include_usage":true}`}[includeUsage] + `}`
		resp := ts.startStream(t, "/v1/chat/completions", body)
		events, done := readEvents(t, resp.Body)
		resp.Body.Close()
		if !done {
			t.Errorf("chat stream (include_usage %v) did not end with [DONE]", includeUsage)
		}
		chunks := make([]oaChatChunk, len(events))
		for i, e := range events {
			decodeStrict(t, []byte(e), &chunks[i])
			if c := chunks[i]; c.Object != "chat.completion.chunk" || c.ID != chunks[0].ID || (c.Usage != nil) != (includeUsage && i == len(events)-1) {
				t.Errorf("chunk %d = %s, want a chat.completion.chunk of the stream's id, usage only in the last when asked", i, e)
			}
		}
		if includeUsage {
			last := chunks[len(chunks)-1]
			if len(last.Choices) != 0 || last.Usage.CompletionTokens != 7 || last.Usage.PromptTokensDetails.CachedTokens == 0 {
				t.Errorf("usage chunk = %+v, want no choices, 7 completion tokens and cached tokens", last)
			}
			chunks = chunks[:len(chunks)-1]
		}
		if len(chunks) != 1+7 {
			t.Fatalf("chat stream sent %d chunks with choices, want the role's and 7, one per token: %q", len(chunks), events)
		}
		if d := chunks[0].Choices[0].Delta; d.Role != "assistant" || d.Content == nil || *d.Content != "" {
			t.Errorf("first chunk = %s, want delta {role: assistant, content: \"\"}", events[0])
		}
		for i, c := range chunks[1:] {
			ch := c.Choices[0]
			last := i == 6
			if ch.Delta.Role != "" || ch.Delta.Content == nil || len(*ch.Delta.Content) != 1 || (ch.FinishReason != nil) != last {
				t.Errorf("token chunk %d = %s, want one letter of content, finish_reason only on the last", i, events[i+1])
			}
		}
	}
}

// TestChatNextTurnReusesCache checks that the template makes a
// conversation's next turn start with the previous prompt.
func TestChatNextTurnReusesCache(t *testing.T) {
	ts := startServer(t, nil)
	var first oaChatCompletion
	_, b := ts.post(t, "/v1/chat/completions", chatBody+`,"max_tokens":4}`)
	decodeStrict(t, b, &first)
	answer, _ := json.Marshal(*first.Choices[0].Message.Content)
	next := strings.TrimSuffix(chatBody, "]") + `,{"role":"assistant","content":` + string(answer) + `},{"role":"user","content":"and then?"}],"max_tokens":4}`
	var second oaChatCompletion
	_, b = ts.post(t, "/v1/chat/completions", next)
	decodeStrict(t, b, &second)
	prev := first.Usage.PromptTokens
	if got := second.Usage.PromptTokensDetails.CachedTokens; got < prev-16 {
		t.Errorf("cached_tokens of the next turn = %d, want the previous prompt's %d tokens less at most a block of 16", got, prev)
	}
}

// readEvents reads the data payloads of an event stream up to [DONE].
func readEvents(t *testing.T, r io.Reader) (events []string, done bool) {
	t.Helper()
	er := newEventReader(r)
	for {
		data, err := er.next()
		if err == io.ErrUnexpectedEOF {
			return events, false
		}
		if err != nil {
			t.Fatal(err)
		}
		if data == "[DONE]" {
			return events, true
		}
		events = append(events, data)
	}
}

// TestChatErrors checks that a chat request that fails before its first
// token gets an error status and body, streamed or not.
func TestChatErrors(t *testing.T) {
	ts := startServer(t, func(o *Options) { o.Engine.GPU.Blocks = 8 })
	tests := []struct {
		name, body string
		status     int
	}{
		{"no messages", `{"messages":[]}`, 400},
		{"unknown model", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}]}`, 404},
		{"larger than the KV cache", `{"messages":[{"role":"user","content":"x"}],"max_tokens":200}`, 400},
		{"larger than the KV cache streamed", `{"messages":[{"role":"user","content":"x"}],"max_tokens":200,"stream":true}`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b := ts.post(t, "/v1/chat/completions", tt.body)
			var e apiError
			if err := json.Unmarshal(b, &e); err != nil || status != tt.status || e.Error.Type != "invalid_request_error" || e.Error.Message == "" {
				t.Errorf("POST %s = %d %s, want %d and an invalid_request_error body", tt.body, status, b, tt.status)
			}
		})
	}
}
