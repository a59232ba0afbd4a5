package mooncake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// maxAnswer bounds every answer read whole (all but /get_all_keys).
const maxAnswer = 64 << 20

// maxBackoff caps the pause between attempts.
const maxBackoff = 2 * time.Second

// ErrMalformedAnswer is wrapped by every failure to understand a master's
// answer; the message around it names the endpoint and what is wrong.
var ErrMalformedAnswer = errors.New("malformed answer")

// errTimedOut is the cause of a context that ran past Options.Timeout.
var errTimedOut = errors.New("timed out")

// client sends GET requests to one master's admin API.
type client struct {
	base *url.URL
	addr string
	opts Options
}

// statusError is an answer with an unexpected HTTP status.
type statusError struct {
	Status int
	Body   string
}

func (e *statusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body)
}

// url builds the request URL for a path and an already encoded query.
func (c *client) url(path, rawQuery string) string {
	u := *c.base
	u.Path, u.RawQuery = path, rawQuery
	return u.String()
}

// fail wraps err with the master's address and the endpoint.
func (c *client) fail(path string, err error) error {
	return fmt.Errorf("mooncake master at %s: GET %s: %w", c.addr, path, err)
}

// malformed reports an answer that could not be understood.
func (c *client) malformed(path string, err error) error {
	return fmt.Errorf("mooncake master at %s: GET %s: %w: %w", c.addr, path, ErrMalformedAnswer, err)
}

// get fetches path?rawQuery and returns the whole body of a 200 answer,
// retrying 503 answers and transient failures.
func (c *client) get(ctx context.Context, path, rawQuery string) ([]byte, error) {
	var body []byte
	err := c.retry(ctx, path, func(ctx context.Context) error {
		rctx, cancel := context.WithTimeoutCause(ctx, c.opts.Timeout, errTimedOut)
		defer cancel()
		resp, err := c.send(rctx, path, rawQuery)
		if err != nil {
			return c.classify(ctx, rctx, err)
		}
		defer resp.Body.Close()
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
		if err != nil {
			return c.classify(ctx, rctx, readError{err})
		}
		if len(body) > maxAnswer {
			return fmt.Errorf("answer larger than %d bytes", maxAnswer)
		}
		return checkStatus(resp.StatusCode, body)
	})
	return body, err
}

// stream fetches path and hands the body of a 200 answer to read. Only the
// request is retried; once read has been called, a failure is final. The
// timeout limits the silence between two reads, not the whole transfer.
func (c *client) stream(ctx context.Context, path string, read func(io.Reader) error) error {
	return c.retry(ctx, path, func(ctx context.Context) error {
		rctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		idle := time.AfterFunc(c.opts.Timeout, func() { cancel(errTimedOut) })
		defer idle.Stop()
		resp, err := c.send(rctx, path, "")
		idle.Stop()
		if err != nil {
			return c.classify(ctx, rctx, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			return checkStatus(resp.StatusCode, body)
		}
		r := &idleReader{r: resp.Body, timer: idle, timeout: c.opts.Timeout}
		if err := read(r); err != nil {
			return final{c.classify(ctx, rctx, err)}
		}
		return nil
	})
}

// final marks an error that must not be retried.
type final struct{ err error }

func (f final) Error() string { return f.err.Error() }
func (f final) Unwrap() error { return f.err }

// idleReader arms its timer for the duration of every read, so that the
// timeout measures the master's silence and not the time the reader spends
// between reads.
type idleReader struct {
	r       io.Reader
	timer   *time.Timer
	timeout time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	r.timer.Reset(r.timeout)
	n, err := r.r.Read(p)
	r.timer.Stop()
	return n, err
}

// send issues one GET.
func (c *client) send(ctx context.Context, path, rawQuery string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url(path, rawQuery), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, text/plain")
	return c.opts.HTTPClient.Do(req)
}

// checkStatus turns a non-200 answer into a statusError.
func checkStatus(status int, body []byte) error {
	if status == http.StatusOK {
		return nil
	}
	return &statusError{Status: status, Body: snippet(body)}
}

// snippet shortens an answer body for an error message.
func snippet(body []byte) string {
	const max = 200
	s := string(body)
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}
