package mooncake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/kvctl/kvctl/internal/ctxwait"
	"github.com/kvctl/kvctl/pool"
)

// readError is a failure while reading an answer's body (the master was
// reached, the answer broke off).
type readError struct{ err error }

func (e readError) Error() string { return "reading answer: " + e.err.Error() }
func (e readError) Unwrap() error { return e.err }

// retry runs attempt until it succeeds, fails for good, or the retries are
// spent, pausing with exponential backoff between attempts, and returns the
// last failure explained.
func (c *client) retry(ctx context.Context, path string, attempt func(context.Context) error) error {
	pause := c.opts.Backoff
	attempts := 0
	for {
		err := attempt(ctx)
		attempts++
		if err == nil {
			return nil
		}
		var f final
		if errors.As(err, &f) || !transient(err) || attempts > c.opts.Retries || ctx.Err() != nil {
			return c.explain(path, err, attempts)
		}
		if !ctxwait.Sleep(ctx, jitter(pause)) {
			return c.explain(path, err, attempts)
		}
		pause = min(pause*2, maxBackoff)
	}
}

// classify turns a failure of one attempt whose context is rctx (derived from
// ctx) into a final error when a context ended: the caller's (cancelled) or
// the attempt's own deadline (a timeout, not retried).
func (c *client) classify(ctx, rctx context.Context, err error) error {
	if ctx.Err() != nil {
		return final{fmt.Errorf("%w: %w", context.Cause(ctx), err)}
	}
	if errors.Is(context.Cause(rctx), errTimedOut) {
		return final{fmt.Errorf("%w: no answer within %s", errTimedOut, c.opts.Timeout)}
	}
	return err
}

// explain wraps the last failure with the address, the endpoint and, for a
// master that could not be reached, is not serving or whose answer broke
// off, pool.ErrUnreachable.
func (c *client) explain(path string, err error, attempts int) error {
	var f final
	if errors.As(err, &f) {
		err = f.err
	}
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" (%d attempts)", attempts)
	}
	var (
		se *statusError
		re readError
	)
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return c.fail(path, err)
	case errors.Is(err, errTimedOut):
		return c.fail(path, fmt.Errorf("%w: %w", pool.ErrUnreachable, err))
	case errors.As(err, &se) && se.Status == http.StatusServiceUnavailable:
		return c.fail(path, fmt.Errorf("%w: master is not serving (standby?)%s: %s", pool.ErrUnreachable, tries, describeRefusal(se.Body)))
	case connectionError(err):
		return c.fail(path, fmt.Errorf("%w%s: %w", pool.ErrUnreachable, tries, err))
	case errors.As(err, &re):
		return c.fail(path, fmt.Errorf("%w: the answer broke off%s: %w", pool.ErrUnreachable, tries, err))
	}
	if tries != "" {
		err = fmt.Errorf("%w%s", err, tries)
	}
	return c.fail(path, err)
}

// transient reports whether another attempt may succeed.
func transient(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.Status == http.StatusServiceUnavailable
	}
	var re readError
	if errors.As(err, &re) {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTemporary || dns.IsTimeout
	}
	return connectionError(err)
}

// connectionError reports a failure to reach the master or to keep talking
// to it (refused, reset, closed before answering).
func connectionError(err error) bool {
	var re readError
	if errors.As(err, &re) {
		return false
	}
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) || errors.As(err, &dns) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// jitter spreads a pause by up to 20% either way.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}
