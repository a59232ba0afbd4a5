package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// relayStream relays a generation server's event stream. It reads the
// first event before sending any header: a stream that fails before its
// first chunk (the connection breaks, it ends, the leg times out, or the
// first event is an error object) is answered with an HTTP error, never a
// 200 with a cut body; nothing is written then (the caller answers the
// error). A failure after the first chunk ends the relayed stream with an
// error object and no [DONE], as the servers' own streams end.
func (f *front) relayStream(w http.ResponseWriter, call *legCall, resp *http.Response, start time.Time) *legError {
	events := bufio.NewReader(resp.Body)
	first, err := readEvent(events)
	if err == nil {
		err = firstEventError(first)
	}
	if err != nil {
		return f.beforeFirstChunk(call, err)
	}
	call.answered()
	f.metrics.observe(legGeneration, call.url, outcomeOK, call.start)
	f.metrics.ttft.Observe(time.Since(start).Seconds())
	ev := startEvents(w)
	for event := first; ; {
		if !ev.write(event) {
			return nil // the client is gone: its context cancels the leg
		}
		if events.Buffered() == 0 {
			ev.flush()
		}
		if event, err = readEvent(events); err != nil {
			break
		}
	}
	if !errors.Is(err, io.EOF) {
		e := call.failure(err)
		ev.send(newAPIError(fmt.Sprintf("%s (after the first chunk)", e.msg), e.typ))
	}
	ev.flush()
	return nil
}

// beforeFirstChunk is the error of a stream that failed before its first
// chunk.
func (f *front) beforeFirstChunk(call *legCall, err error) *legError {
	if errors.Is(err, io.EOF) {
		return &legError{status: http.StatusBadGateway, typ: "upstream_error",
			msg: fmt.Sprintf("generation server %s: the stream ended before its first chunk", call.url)}
	}
	var upstream *streamError
	if errors.As(err, &upstream) {
		return &legError{status: http.StatusBadGateway, typ: upstream.Type,
			msg: fmt.Sprintf("generation server %s: the stream failed before its first chunk: %s", call.url, upstream.Message)}
	}
	lerr := call.failure(err)
	lerr.msg += " (before the first chunk)"
	return lerr
}

// readEvent reads one server-sent event, through its blank line; io.EOF
// when the stream ended before one began, io.ErrUnexpectedEOF when it
// ended inside one.
func readEvent(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			if errors.Is(err, io.EOF) && b.Len() > 0 {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		if line == "\n" || line == "\r\n" {
			if b.Len() == len(line) { // a stray blank line: no event yet
				b.Reset()
				continue
			}
			return b.String(), nil
		}
	}
}

// streamError is an error object sent as a stream's event.
type streamError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
}

func (e *streamError) Error() string { return e.Message }

// firstEventError is the error a stream's first event holds: an error
// object, or [DONE] (a stream without a chunk).
func firstEventError(event string) error {
	for _, line := range strings.Split(event, "\n") {
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			return io.EOF
		}
		var body struct {
			Error *streamError `json:"error"`
		}
		if json.Unmarshal([]byte(data), &body) == nil && body.Error != nil {
			return body.Error
		}
	}
	return nil
}

// models relays a generation server's GET /v1/models.
func (f *front) models(w http.ResponseWriter, r *http.Request) {
	url, release := f.gen.pick()
	defer release()
	call := newLegCall(r.Context(), f.opts.Client, legGeneration, url, f.opts.LegTimeout)
	defer call.close()
	req, err := http.NewRequestWithContext(call.ctx, http.MethodGet, url+"/v1/models", nil)
	if err == nil {
		req.Header.Set("Authorization", r.Header.Get("Authorization"))
		var resp *http.Response
		if resp, err = f.opts.Client.Do(req); err == nil {
			defer resp.Body.Close()
			relayAs(w, resp)
			return
		}
	}
	call.failure(err).write(w)
}

// relayAs copies a response's status, content type and body.
func relayAs(w http.ResponseWriter, resp *http.Response) {
	var b bytes.Buffer
	io.Copy(&b, io.LimitReader(resp.Body, maxBody))
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(b.Bytes())
}
