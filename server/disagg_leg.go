package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// The two legs of a disaggregated request.
const (
	legContext    = "context"
	legGeneration = "generation"
)

// maxUpstreamError bounds an upstream error body the front relays.
const maxUpstreamError = 1 << 20

// legError is a leg's failure as the front answers it: an upstream's own
// error (its status and body relayed as they are) or the front's, an
// OpenAI error body naming the server.
type legError struct {
	status      int
	typ, msg    string
	body        []byte // an upstream's error body; nil: the front's own
	contentType string
}

func (e *legError) Error() string { return e.msg }

// outcome is the metrics label of the failure: its HTTP status.
func (e *legError) outcome() string { return strconv.Itoa(e.status) }

// write answers the failure.
func (e *legError) write(w http.ResponseWriter) {
	if e.body == nil {
		writeError(w, e.status, e.msg, e.typ)
		return
	}
	if e.contentType != "" {
		w.Header().Set("Content-Type", e.contentType)
	}
	w.WriteHeader(e.status)
	w.Write(e.body)
}

// errLegTimeout cancels a leg that ran past the front's timeout.
var errLegTimeout = errors.New("leg timed out")

// legCall is one request to a context or generation server. Its timer
// cancels it unless answered stops the timer in time.
type legCall struct {
	leg, url string
	timeout  time.Duration
	client   *http.Client
	ctx      context.Context
	cancel   context.CancelCauseFunc
	timer    *time.Timer
	start    time.Time
}

// newLegCall starts a leg under parent (the client's request: a client
// that goes away cancels it).
func newLegCall(parent context.Context, client *http.Client, leg, url string, timeout time.Duration) *legCall {
	ctx, cancel := context.WithCancelCause(parent)
	c := &legCall{leg: leg, url: url, timeout: timeout, client: client, ctx: ctx, cancel: cancel, start: time.Now()}
	c.timer = time.AfterFunc(timeout, func() { cancel(errLegTimeout) })
	return c
}

// answered stops the timer: the leg answered in time (what it still
// streams is bounded by the client only).
func (c *legCall) answered() { c.timer.Stop() }

// close ends the call, cancelling what is left of it.
func (c *legCall) close() {
	c.timer.Stop()
	c.cancel(context.Canceled)
}

// post sends body to the server's path; a status other than 2xx is a
// legError holding the upstream's status and body.
func (c *legCall) post(path string, body []byte, auth string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodPost, c.url+path, bytes.NewReader(body))
	if err != nil {
		return nil, c.failure(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, c.failure(err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamError))
	if err != nil {
		return nil, c.failure(err)
	}
	return nil, &legError{status: resp.StatusCode, msg: fmt.Sprintf("%s server %s answered %d", c.leg, c.url, resp.StatusCode),
		body: b, contentType: resp.Header.Get("Content-Type")}
}

// failure names the server in an error of the call: 504 when it ran past
// the timeout, 499 when the client went away, else 502 (the server is
// down, or broke the connection).
func (c *legCall) failure(err error) *legError {
	var le *legError
	if errors.As(err, &le) {
		return le
	}
	switch cause := context.Cause(c.ctx); {
	case errors.Is(cause, errLegTimeout):
		return &legError{status: http.StatusGatewayTimeout, typ: "upstream_timeout",
			msg: fmt.Sprintf("%s server %s did not answer within %s", c.leg, c.url, c.timeout)}
	case cause != nil:
		return &legError{status: 499, typ: "cancelled", msg: fmt.Sprintf("%s server %s: the client went away", c.leg, c.url)}
	}
	return &legError{status: http.StatusBadGateway, typ: "upstream_unavailable",
		msg: fmt.Sprintf("%s server %s: %v", c.leg, c.url, err)}
}
