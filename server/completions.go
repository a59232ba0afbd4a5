package server

import (
	"context"
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

// completions serves /v1/completions, /v1/chat/completions and
// /v1/models.
type completions struct {
	live    *engine.Live
	model   string
	metrics *metrics
	seq     atomic.Int64
	role    string
	kv      *kvFetcher
}

// handler answers the requests of endpoint e.
func (c *completions) handler(e *endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, ok := c.read(w, r, e)
		if !ok {
			return
		}
		kv, ok := c.fetchKV(w, r, req)
		if !ok {
			return
		}
		seq := c.seq.Add(1)
		id := e.idPrefix + strconv.FormatInt(seq, 10)
		stream, err := c.live.SubmitWith(r.Context(), workload.Request{ID: id, Tokens: req.tokens, OutputLength: req.maxTokens},
			submitOptions(req, seq, kv))
		if err != nil {
			c.fail(w, err)
			return
		}
		// nothing is written before the first tokens: a request that fails
		// before them gets an error status, never a 200 with a cut stream
		cur := newTokenCursor(r.Context(), stream, req.maxTokens)
		cur.first = firstToken(req)
		if err := cur.fill(); err != nil {
			if errors.Is(err, engine.ErrKVTransfer) {
				c.metrics.kv.failures.WithLabelValues("refused").Inc()
			}
			c.fail(w, err)
			return
		}
		c.metrics.ttft.Observe(time.Since(start).Seconds())
		head := header{ID: id, Created: start.Unix(), Model: c.model}
		if req.stream {
			c.writeStream(w, e, head, cur, req.includeUsage)
			return
		}
		c.writeWhole(w, e, head, cur, req, seq)
	}
}

// read reads and checks a request; when it fails it answers the error
// and returns false.
func (c *completions) read(w http.ResponseWriter, r *http.Request, e *endpoint) (parsedRequest, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("reading the request body: %v", err), "invalid_request_error")
		return parsedRequest{}, false
	}
	req, err := e.parse(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), "invalid_request_error")
		return parsedRequest{}, false
	}
	if req.model != "" && req.model != c.model {
		writeError(w, http.StatusNotFound, fmt.Sprintf("the model %q does not exist; this server serves %q", req.model, c.model), "invalid_request_error")
		return parsedRequest{}, false
	}
	if err := c.checkRole(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), "invalid_request_error")
		return parsedRequest{}, false
	}
	return req, true
}

// fail answers a request that failed before its first token; a failed
// KV transfer carries the code DISAGG_TRANS_ERROR.
func (c *completions) fail(w http.ResponseWriter, err error) {
	status, typ := errorStatus(err)
	e := newAPIError(err.Error(), typ)
	if errors.Is(err, engine.ErrKVTransfer) {
		code := engine.ErrKVTransfer.Error()
		e.Error.Code = &code
	}
	writeJSON(w, status, e)
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

// writeWhole waits for the whole completion and answers it at once, with
// its usage (and the disaggregated_params of a context_only request, its
// KV held under seq).
func (c *completions) writeWhole(w http.ResponseWriter, e *endpoint, head header, cur *tokenCursor, req parsedRequest, seq int64) {
	all, err := cur.rest()
	if err != nil {
		c.fail(w, err)
		return
	}
	p, err := c.contextParams(req, seq, all)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), "server_error")
		return
	}
	u := c.usage(cur.s)
	writeJSON(w, http.StatusOK, e.whole(head, Detokenize(all), &u, p))
}

// writeStream streams the completion as server-sent events: e's opening
// chunk, one chunk per token as the engine makes them (finish_reason on
// the last), a chunk with usage and no choices when the request asked
// for it, then [DONE]. The chunks of the tokens at hand are flushed
// together, before waiting for more. A failure after the first chunk
// ends the stream with an error object and no [DONE].
func (c *completions) writeStream(w http.ResponseWriter, e *endpoint, head header, cur *tokenCursor, includeUsage bool) {
	ev := startEvents(w)
	if e.opening != nil && !ev.send(e.opening(head)) {
		return // the client is gone: its context cancels the request
	}
	for last := false; !last; {
		if !cur.atHand() {
			ev.flush()
		}
		var tokens []int64
		var err error
		if tokens, last, err = cur.next(); err != nil {
			_, typ := errorStatus(err)
			ev.send(newAPIError(err.Error(), typ))
			ev.flush()
			return
		}
		var finish *string
		if last {
			finish = &finishLength
		}
		if !ev.send(e.chunk(head, Detokenize(tokens), finish)) {
			return
		}
	}
	u := c.usage(cur.s)
	if includeUsage && !ev.send(e.usageChunk(head, &u)) {
		return
	}
	ev.end()
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
