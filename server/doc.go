// Package server is the HTTP front of `kvctl serve --single-rank` without
// a trace, and the disaggregated front of `kvctl serve --disagg-front`
// (see Disaggregated serving): OpenAI-compatible completions and chat
// completions over the live engine (engine.Live), Prometheus metrics, and
// the embedded pool's Mooncake master admin API, so that `kvctl holes
// --pool mooncake://ADDR` reads the pool of a running server.
//
// # Endpoints
//
//	POST /v1/completions     an OpenAI subset: model, prompt, max_tokens, stream, stream_options
//	POST /v1/chat/completions an OpenAI subset: model, messages, max_tokens or
//	                         max_completion_tokens, stream, stream_options
//	GET  /v1/models          the one model, Options.ModelName
//	GET  /healthz            {"status":"ok"} while the engine runs, else 503
//	GET  /metrics            kvctl_* series and the pool's master_* and segment_* series
//	                         (Prometheus text; stats.NewPoolCollector, one pool Stat per scrape)
//	GET  /get_all_keys, /batch_query_keys, /query_key, /get_all_segments,
//	     /get_segments_detail, /query_segment, /api/v1/segments/status,
//	     /health, /leader, /role, /ha_status, /kv_events/status
//	                         the Mooncake master admin API over the pool (Options.Master;
//	                         kvctl serves mooncake.NewMasterHandler)
//
// # Tokens and text
//
// There is no real model. A prompt string is tokenized byte by byte: each
// byte b of its UTF-8 encoding is token id b (0-255), so "hi" is [104,
// 105]. A prompt may also be an array of token ids (any int64), or an
// array holding one string. A chat request's messages are joined by
// ChatTemplate (ChatML: "<|im_start|>ROLE\nCONTENT<|im_end|>\n" each,
// then "<|im_start|>assistant\n") and tokenized the same way; a content
// given as parts is its text parts concatenated. The engine's synthetic
// model generates deterministic token ids in [0, 128000)
// (engine.NextToken); each is rendered as one lowercase letter, 'a' + id
// mod 26, so a completion's text has as many bytes as completion_tokens.
// Equal prompts generate equal text.
//
// # Streams and usage
//
// A streamed answer sends one chunk per token as the engine makes them,
// with or without Options.RealTime, finish_reason "length" on the last
// token's chunk; a chat stream starts with a chunk whose delta is
// {"role":"assistant","content":""}. usage is sent only when
// stream_options.include_usage is set, in a final chunk with no choices,
// as OpenAI sends it; then "data: [DONE]". An answer that does not stream
// holds its usage. usage.prompt_tokens_details.cached_tokens is the
// prompt tokens served from cache: reused from the local prefix cache
// plus loaded from the pool (engine.LiveUsage.CachedTokens).
//
// # API key
//
// With Options.APIKey set, the /v1 paths and the admin path that changes
// the pool (/query_key, which leases) answer 401, with an OpenAI error
// body of code invalid_api_key, unless the request carries
// "Authorization: Bearer KEY". /healthz, /metrics and the read-only admin
// paths stay open: the pool's mooncake:// client, like a Mooncake
// master's, sends no key, and /metrics shows the same state.
//
// # Errors
//
// A request that fails before its first token gets an HTTP error status
// and the body {"error":{"message":...,"type":...,"code":...}}: 400
// invalid_request_error for a malformed request or one the engine refuses
// (an empty prompt, one that can never fit in the KV cache), 404 for an
// unknown model, 401 without the API key (see above), 503 when the server
// is stopping. A stream that fails
// after its first chunk ends with a data: line holding such an error
// object and no [DONE]. A client that disconnects cancels its request and
// the engine frees it.
//
// # Disaggregated serving
//
// Shapes follow TensorRT-LLM's disaggregated OpenAI server
// (tensorrt_llm/serve/openai_disagg_server.py and
// openai_disagg_service.py, router.py). With Options.Role a server
// answers the disaggregated_params of a request (DisaggParams):
// RoleContext answers a context_only request, not streamed, with one
// token and, in its choice, disaggregated_params holding request_type
// context_only, first_gen_tokens (that token) and ctx_request_id (the
// number of its id, cmpl-N or chatcmpl-N); RoleGeneration answers a
// generation_only request, streamed or not, whose first token is
// first_gen_tokens[0]. A server refuses (400) the request type of the
// other role, and both without a role.
//
// The KV moves between them over HTTP (Options.KVTransfer): a context
// server holds a context_only request's pages under its ctx_request_id
// (engine.SubmitOptions.HoldAs) and serves them at KVPath+id (GET takes
// them, DELETE releases them; 404 for an id not held) until
// KVTransferOptions.Timeout; a generation server given a generation_only
// request with ctx_info_endpoint fetches them from there, paced and
// bounded by KVTransferOptions, and its engine verifies and installs them
// as the request's prefix (engine.SubmitOptions.KV). A transfer that
// fails answers 500 with the code DISAGG_TRANS_ERROR and releases the
// hold. Without ctx_info_endpoint the engine prefills the prompt again,
// loading from a shared pool what the context server saved.
//
// NewFront and RunFront serve the front over such servers: each request
// goes to a context server (routed round-robin or to the fewest in
// flight) as context_only with max_tokens (a chat request's
// max_completion_tokens) 1 and stream false, then, only when that
// succeeded, to a generation server with the context server's
// disaggregated_params as generation_only (ctx_info_endpoint set to the
// context server's URL), whose answer or stream is relayed. The front
// reads a relayed stream's first event before it sends a header: a
// stream that fails before its first chunk is answered with an HTTP
// error, never a 200 with a cut body. An upstream's error keeps its
// status and body; a server that is down is 502, one that does not
// answer within FrontOptions.LegTimeout 504, each naming the server.
//
// # Shutdown
//
// Run stops when its context ends: it stops accepting connections, waits
// up to Options.ShutdownTimeout for requests in flight, then closes the
// remaining connections (cancelling their requests), stops the engine and
// closes the pool, unless Options.KeepPool (servers sharing one pool).
package server
