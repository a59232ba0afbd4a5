package transfer

import (
	"time"

	"github.com/kvctl/kvctl/cuda"
)

// deviceTimer sums the device's copy time of a call's sets as the union
// of their intervals (from a set's start event to its done event): with
// the copier moving bounce runs beside the stream (cuda.Copier.SetOverlap)
// a set's done event may follow the next set's start, and a plain sum of
// the intervals would count the overlap twice.
type deviceTimer struct {
	// origin is the lane's event recorded before the call's first
	// copies; nil when the call is not timed.
	origin  cuda.Event
	started bool
	end     time.Duration // the latest end so far, from origin
	total   time.Duration
}

// begin records the origin on s before the call's first copies.
func (t *deviceTimer) begin(s cuda.Stream) error {
	if t.origin == nil || t.started {
		return nil
	}
	t.started = true
	return t.origin.Record(s)
}

// add counts the part of a completed set's interval not counted yet; sets
// are added in the order they were queued.
func (t *deviceTimer) add(start, done cuda.Event) {
	if !t.started || start == nil {
		return
	}
	from, err1 := start.Since(t.origin)
	to, err2 := done.Since(t.origin)
	if err1 != nil || err2 != nil {
		return
	}
	if from = max(from, t.end); to > from {
		t.total += to - from
	}
	t.end = max(t.end, to)
}
