package server

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// eventStream writes server-sent events; they reach the client when
// flushed.
type eventStream struct {
	w       http.ResponseWriter
	flusher http.Flusher
}

// startEvents sends the headers of an event stream with status 200.
func startEvents(w http.ResponseWriter) *eventStream {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	return &eventStream{w: w, flusher: flusher}
}

// send writes v as one "data:" event, unflushed; false when the client
// is gone.
func (e *eventStream) send(v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return e.write("data: " + string(b) + "\n\n")
}

// end writes "data: [DONE]" and flushes.
func (e *eventStream) end() {
	e.write("data: [DONE]\n\n")
	e.flush()
}

// flush sends what was written to the client.
func (e *eventStream) flush() {
	if e.flusher != nil {
		e.flusher.Flush()
	}
}

func (e *eventStream) write(s string) bool {
	_, err := fmt.Fprint(e.w, s)
	return err == nil
}
