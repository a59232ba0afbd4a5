package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/workload"
)

// completions serves /v1/completions and /v1/models.
type completions struct {
	live    *engine.Live
	model   string
	metrics *metrics
	seq     atomic.Int64
}

var finishLength = "length"

func (c *completions) serveHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("reading the request body: %v", err), "invalid_request_error")
		return
	}
	req, err := parseCompletionRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), "invalid_request_error")
		return
	}
	if req.model != "" && req.model != c.model {
		writeError(w, http.StatusNotFound, fmt.Sprintf("the model %q does not exist; this server serves %q", req.model, c.model), "invalid_request_error")
		return
	}
	id := "cmpl-" + strconv.FormatInt(c.seq.Add(1), 10)
	stream, err := c.live.Submit(r.Context(), workload.Request{ID: id, Tokens: req.tokens, OutputLength: req.maxTokens})
	if err != nil {
		c.fail(w, err)
		return
	}
	// nothing is written before the first tokens: a request that fails
	// before them gets an error status
	first, done, err := stream.Next(r.Context(), nil)
	if err != nil {
		c.fail(w, err)
		return
	}
	c.metrics.ttft.Observe(time.Since(start).Seconds())
	head := completion{ID: id, Object: "text_completion", Created: start.Unix(), Model: c.model}
	if req.stream {
		c.writeStream(w, r.Context(), stream, head, first, done, req.includeUsage)
		return
	}
	c.writeWhole(w, r.Context(), stream, head, first, done)
}

// fail answers a request that failed before its first token.
func (c *completions) fail(w http.ResponseWriter, err error) {
	status, typ := errorStatus(err)
	writeError(w, status, err.Error(), typ)
}

// errorStatus maps an engine error to an HTTP status and an OpenAI error
// type.
func errorStatus(err error) (int, string) {
	var re *engine.RequestError
	switch {
	case errors.As(err, &re):
		return http.StatusBadRequest, "invalid_request_error"
	case errors.Is(err, engine.ErrCancelled), errors.Is(err, context.Canceled):
		return 499, "cancelled" // the client is gone; nobody reads it
	case errors.Is(err, engine.ErrStopped):
		return http.StatusServiceUnavailable, "service_unavailable"
	}
	return http.StatusInternalServerError, "server_error"
}

// writeWhole waits for the whole completion and answers it at once.
func (c *completions) writeWhole(w http.ResponseWriter, ctx context.Context, s *engine.LiveStream, head completion, tokens []int64, done bool) {
	all := append([]int64(nil), tokens...)
	var err error
	for !done {
		tokens, done, err = s.Next(ctx, tokens)
		if err != nil {
			c.fail(w, err)
			return
		}
		all = append(all, tokens...)
	}
	u := c.usage(s)
	head.Choices = []choice{{Text: Detokenize(all), FinishReason: &finishLength}}
	head.Usage = &u
	writeJSON(w, http.StatusOK, head)
}

// writeStream streams the completion as server-sent events: a chunk per
// batch of tokens, the last with finish_reason and usage, an optional
// usage-only chunk, then [DONE].
func (c *completions) writeStream(w http.ResponseWriter, ctx context.Context, s *engine.LiveStream, head completion, tokens []int64, done bool, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		_, err := fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
		return err == nil
	}
	var err error
	var u usage
	for {
		chunk := head
		chunk.Choices = []choice{{Text: Detokenize(tokens)}}
		if done {
			u = c.usage(s)
			chunk.Choices[0].FinishReason, chunk.Usage = &finishLength, &u
		}
		if !send(chunk) {
			return // the client is gone: its context cancels the request
		}
		if done {
			break
		}
		if tokens, done, err = s.Next(ctx, tokens); err != nil {
			_, typ := errorStatus(err)
			send(newAPIError(err.Error(), typ))
			return
		}
	}
	if includeUsage {
		final := head
		final.Choices, final.Usage = []choice{}, &u
		send(final)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// usage is the OpenAI usage of a completed request; it records the
// request's modelled TTFT.
func (c *completions) usage(s *engine.LiveStream) usage {
	lu := s.Usage()
	c.metrics.modelledTTFT.Observe(lu.TTFTMS / 1000)
	var u usage
	u.PromptTokens, u.CompletionTokens = lu.PromptTokens, lu.CompletionTokens
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.PromptTokensDetails.CachedTokens = lu.CachedTokens()
	return u
}

func (c *completions) models(w http.ResponseWriter, r *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	writeJSON(w, http.StatusOK, struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{{ID: c.model, Object: "model", Created: engine.Epoch.Unix(), OwnedBy: "kvctl"}}})
}
