package server

// header is what every object of one answer repeats.
type header struct {
	ID      string
	Created int64
	Model   string
}

// endpoint is what differs between /v1/completions and
// /v1/chat/completions: how a request is read and how its answer is
// shaped. Both stream one chunk per token, finish_reason on the last.
type endpoint struct {
	// idPrefix starts the ids of answers ("cmpl-", "chatcmpl-").
	idPrefix string
	// parse reads and validates a request body.
	parse func(body []byte) (parsedRequest, error)
	// whole is the answer of a request that does not stream; p, when not
	// nil, is its choice's disaggregated_params.
	whole func(h header, text string, u *usage, p *DisaggParams) any
	// opening, when not nil, is the first chunk of a stream.
	opening func(h header) any
	// chunk is a chunk of a stream holding text, the last with finish.
	chunk func(h header, text string, finish *string) any
	// usageChunk is the stream's final chunk, with no choices, when the
	// request asked for stream_options.include_usage.
	usageChunk func(h header, u *usage) any
}

var finishLength = "length"

// textCompletions is POST /v1/completions.
var textCompletions = endpoint{
	idPrefix: "cmpl-",
	parse:    parseCompletionRequest,
	whole: func(h header, text string, u *usage, p *DisaggParams) any {
		return completionOf(h, []choice{{Text: text, FinishReason: &finishLength, DisaggregatedParams: p}}, u)
	},
	chunk: func(h header, text string, finish *string) any {
		return completionOf(h, []choice{{Text: text, FinishReason: finish}}, nil)
	},
	usageChunk: func(h header, u *usage) any { return completionOf(h, []choice{}, u) },
}

func completionOf(h header, choices []choice, u *usage) completion {
	return completion{ID: h.ID, Object: "text_completion", Created: h.Created, Model: h.Model, Choices: choices, Usage: u}
}

// chatCompletions is POST /v1/chat/completions.
var chatCompletions = endpoint{
	idPrefix: "chatcmpl-",
	parse:    parseChatRequest,
	whole: func(h header, text string, u *usage, p *DisaggParams) any {
		msg := chatMessageOut{Role: "assistant", Content: text}
		return chatCompletion{ID: h.ID, Object: "chat.completion", Created: h.Created, Model: h.Model,
			Choices: []chatChoice{{Message: msg, FinishReason: &finishLength, DisaggregatedParams: p}}, Usage: u}
	},
	opening: func(h header) any {
		empty := ""
		return chatChunkOf(h, []chatChunkChoice{{Delta: chatDelta{Role: "assistant", Content: &empty}}}, nil)
	},
	chunk: func(h header, text string, finish *string) any {
		return chatChunkOf(h, []chatChunkChoice{{Delta: chatDelta{Content: &text}, FinishReason: finish}}, nil)
	},
	usageChunk: func(h header, u *usage) any { return chatChunkOf(h, []chatChunkChoice{}, u) },
}

func chatChunkOf(h header, choices []chatChunkChoice, u *usage) chatChunk {
	return chatChunk{ID: h.ID, Object: "chat.completion.chunk", Created: h.Created, Model: h.Model, Choices: choices, Usage: u}
}
