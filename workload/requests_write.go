package workload

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// RequestWriter writes requests as the lines of a kvctl requests file,
// which ReadRequests reads back as they were written (an empty ID
// excepted: it reads back as "line-N").
type RequestWriter struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewRequestWriter returns a RequestWriter onto w. Call Flush when done.
func NewRequestWriter(w io.Writer) *RequestWriter {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &RequestWriter{w: bw, enc: enc}
}

// Write writes req as one line.
func (w *RequestWriter) Write(req Request) error {
	if req.Tokens == nil {
		req.Tokens = []int64{} // a line needs its tokens, empty or not
	}
	if err := w.enc.Encode(req); err != nil {
		return fmt.Errorf("writing request %q: %w", req.ID, err)
	}
	return nil
}

// Flush writes what is buffered to the underlying writer.
func (w *RequestWriter) Flush() error {
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("writing requests: %w", err)
	}
	return nil
}

// Recorded returns a Source whose Each hands fn src's requests and writes
// each one to w before handing it over: the requests a consumer pulled, in
// the order it pulled them. The caller flushes w.
func Recorded(src Source, w *RequestWriter) Source {
	return recorded{src: src, w: w}
}

type recorded struct {
	src Source
	w   *RequestWriter
}

func (r recorded) Name() string { return r.src.Name() }

func (r recorded) Each(fn func(req Request) error) error {
	return r.src.Each(func(req Request) error {
		if err := r.w.Write(req); err != nil {
			return err
		}
		return fn(req)
	})
}
