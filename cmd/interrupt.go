package cmd

// What Ctrl-C does: stdin reads that a cancelled context ends, and the
// error that says how far an interrupted command got.

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// interruptibleReader reads r on a goroutine so that a read blocked on a
// pipe or terminal that never closes ends with ctx's error once ctx is
// done. The goroutine stuck in r's Read is abandoned (the process exits).
type interruptibleReader struct {
	ctx     context.Context
	r       io.Reader
	results chan readResult
	pending bool
	buf     []byte
}

type readResult struct {
	n   int
	err error
}

// interruptible wraps r so that its reads end when ctx is done: the one
// way kvctl reads stdin (run wraps IOStreams.In with it).
func interruptible(ctx context.Context, r io.Reader) io.Reader {
	return &interruptibleReader{ctx: ctx, r: r, results: make(chan readResult, 1)}
}

// Read reads into p what the reading goroutine read into its own buffer,
// or returns ctx's error when ctx ends first.
func (ir *interruptibleReader) Read(p []byte) (int, error) {
	if err := ir.ctx.Err(); err != nil {
		return 0, err
	}
	if !ir.pending {
		if cap(ir.buf) < len(p) {
			ir.buf = make([]byte, len(p))
		}
		buf := ir.buf[:len(p)]
		ir.pending = true
		go func() {
			n, err := ir.r.Read(buf)
			ir.results <- readResult{n, err}
		}()
	}
	select {
	case <-ir.ctx.Done():
		return 0, ir.ctx.Err()
	case res := <-ir.results:
		ir.pending = false
		n := copy(p, ir.buf[:res.n])
		return n, res.err
	}
}

// contextReader is a reader that cannot block (a file) whose reads end
// with ctx's error once ctx is done, so that a loop over a long file stops
// at once.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (cr contextReader) Read(p []byte) (int, error) {
	if err := cr.ctx.Err(); err != nil {
		return 0, err
	}
	return cr.r.Read(p)
}

// interruptedError is a command that Ctrl-C (or SIGTERM) stopped after
// doing part of its work: done of total units, requests unless unit says
// otherwise (total 0 when the command streams its input and does not know
// it). It exits 130.
type interruptedError struct {
	done, total int64
	unit        string
}

func (e *interruptedError) Error() string {
	unit := e.unit
	if unit == "" {
		unit = "requests"
	}
	if e.total > 0 {
		return fmt.Sprintf("interrupted after %s of %s %s", groupThousands(e.done), groupThousands(e.total), unit)
	}
	if e.done > 0 {
		return fmt.Sprintf("interrupted after %s %s", groupThousands(e.done), unit)
	}
	return "interrupted"
}

func (e *interruptedError) Unwrap() error { return context.Canceled }

// interruptedAfter returns err as an interruptedError that names how many
// of total requests were done when err is a cancellation, else err.
func interruptedAfter(err error, done, total int64) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	return &interruptedError{done: done, total: total}
}

// interruptedAfterUnits is interruptedAfter for work counted in units
// other than requests (a plural noun: "runs").
func interruptedAfterUnits(err error, done, total int64, unit string) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	return &interruptedError{done: done, total: total, unit: unit}
}

// interruptedMessage is what kvctl prints for an error that ends it with
// exit 130: how far the command got when it knows, else just that it was
// interrupted (never Go's "context canceled").
func interruptedMessage(err error) string {
	var ie *interruptedError
	if errors.As(err, &ie) {
		return ie.Error()
	}
	return "interrupted"
}
