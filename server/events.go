package server

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// eventStream writes server-sent events, flushing each.
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

// send writes v as one "data:" event; false when the client is gone.
func (e *eventStream) send(v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return e.write("data: " + string(b) + "\n\n")
}

// end writes "data: [DONE]".
func (e *eventStream) end() { e.write("data: [DONE]\n\n") }

func (e *eventStream) write(s string) bool {
	_, err := fmt.Fprint(e.w, s)
	if e.flusher != nil {
		e.flusher.Flush()
	}
	return err == nil
}
