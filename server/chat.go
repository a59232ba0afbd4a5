package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// chatRequest is the subset of an OpenAI chat completion request the
// server reads; other fields (temperature, tools, ...) are ignored.
type chatRequest struct {
	requestCommon
	Messages            []chatMessage `json:"messages"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
}

// chatMessage is one message of a chat request. Content is a string, an
// array of content parts, or null.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// chatRoles are the roles a message may have.
var chatRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true}

// parseChatRequest reads and validates a chat completion request body and
// tokenizes its messages joined by ChatTemplate.
func parseChatRequest(body []byte) (parsedRequest, error) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return parsedRequest{}, fmt.Errorf("parsing the request body: %w", err)
	}
	if len(req.Messages) == 0 {
		return parsedRequest{}, errors.New("messages is required: want at least one message")
	}
	texts := make([]ChatTurn, len(req.Messages))
	for i, m := range req.Messages {
		if !chatRoles[m.Role] {
			return parsedRequest{}, fmt.Errorf("messages[%d].role %q: want system, developer, user, assistant, tool or function", i, m.Role)
		}
		content, err := messageText(m.Content)
		if err != nil {
			return parsedRequest{}, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		texts[i] = ChatTurn{Role: m.Role, Content: content}
	}
	maxTokens := req.MaxTokens
	if req.MaxCompletionTokens != nil {
		maxTokens = req.MaxCompletionTokens
	}
	return req.parsed(Tokenize(ChatTemplate(texts)), maxTokens)
}

// messageText is the text of a message's content: a string, the text
// parts of an array of content parts concatenated, or "" for null.
func messageText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var text string
	if raw[0] == '"' {
		err := json.Unmarshal(raw, &text)
		return text, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or an array of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("content part of type %q: only text parts are served", p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// ChatTurn is one message of a conversation, its content as text.
type ChatTurn struct {
	Role, Content string
}

// ChatTemplate joins a conversation into the prompt the server tokenizes,
// as ChatML does: "<|im_start|>ROLE\nCONTENT<|im_end|>\n" for each
// message, then "<|im_start|>assistant\n" for the answer. The prompt of a
// conversation's next turn (the answer appended as an assistant message,
// then a new user message) starts with the previous prompt, so its KV
// cache is reused.
func ChatTemplate(turns []ChatTurn) string {
	var b strings.Builder
	for _, t := range turns {
		b.WriteString("<|im_start|>" + t.Role + "\n" + t.Content + "<|im_end|>\n")
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}

// chatMessageOut is the assistant message of a chat completion.
type chatMessageOut struct {
	Role    string  `json:"role"`
	Content string  `json:"content"`
	Refusal *string `json:"refusal"` // always null
}

// chatChoice is the choice of a chat completion.
type chatChoice struct {
	Index        int            `json:"index"`
	Message      chatMessageOut `json:"message"`
	Logprobs     *int           `json:"logprobs"` // always null
	FinishReason *string        `json:"finish_reason"`
	// DisaggregatedParams is a context server's answer to a context_only
	// request.
	DisaggregatedParams *DisaggParams `json:"disaggregated_params,omitempty"`
}

// chatCompletion is OpenAI's "chat.completion" object.
type chatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *usage       `json:"usage"`
}

// chatDelta is what a chat chunk adds to the message.
type chatDelta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

// chatChunkChoice is the choice of a chat completion chunk.
type chatChunkChoice struct {
	Index        int       `json:"index"`
	Delta        chatDelta `json:"delta"`
	Logprobs     *int      `json:"logprobs"` // always null
	FinishReason *string   `json:"finish_reason"`
}

// chatChunk is OpenAI's "chat.completion.chunk" object.
type chatChunk struct {
	ID      string            `json:"id"`
	Object  string            `json:"object"`
	Created int64             `json:"created"`
	Model   string            `json:"model"`
	Choices []chatChunkChoice `json:"choices"`
	Usage   *usage            `json:"usage,omitempty"`
}
