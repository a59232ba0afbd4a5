package engine

import (
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/kvctl/kvctl/workload"
)

// arrivals pulls requests from a workload source one at a time and says
// when each arrives. Open loop (clients 0), at its arrival time;
// closed loop (Config.Concurrency), clients clients each send the next
// request of the source when their last one finished (completed or
// failed): a request arrives as soon as fewer than clients are in
// flight, at that moment of the modelled clock, its own arrival time
// ignored.
type arrivals struct {
	clients int
	next    func() (workload.Request, bool)
	stop    func()
	srcErr  error
	head    workload.Request
	hasHead bool
	done    bool
}

var errStopped = errors.New("replay stopped")

func newArrivals(src workload.Source, clients int) *arrivals {
	a := &arrivals{clients: clients}
	seq := func(yield func(workload.Request) bool) {
		err := src.Each(func(r workload.Request) error {
			if !yield(r) {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			a.srcErr = fmt.Errorf("reading requests from %s: %w", src.Name(), err)
		}
	}
	a.next, a.stop = iter.Pull(iter.Seq[workload.Request](seq))
	return a
}

func (a *arrivals) peek() (workload.Request, bool) {
	if !a.hasHead && !a.done {
		a.head, a.hasHead = a.next()
		a.done = !a.hasHead
	}
	return a.head, a.hasHead
}

func (a *arrivals) take() { a.hasHead, a.head = false, workload.Request{} }

func (a *arrivals) err() error { return a.srcErr }

// due takes the next request when it is due at now (modelled
// milliseconds) with inFlight requests in flight, and returns it with its
// arrival time.
func (a *arrivals) due(now float64, inFlight int64) (workload.Request, float64, bool) {
	w, ok := a.peek()
	switch {
	case !ok:
		return w, 0, false
	case a.clients > 0:
		if inFlight >= int64(a.clients) {
			return w, 0, false
		}
		a.take()
		return w, now, true
	case float64(w.ArrivalMS) > now:
		return w, 0, false
	}
	a.take()
	return w, float64(w.ArrivalMS), true
}

// nextAt is when the next request arrives, +Inf when none is left or,
// closed loop, when it waits for a client (a finish, not known ahead).
func (a *arrivals) nextAt() float64 {
	w, ok := a.peek()
	if !ok || a.clients > 0 {
		return math.Inf(1)
	}
	return float64(w.ArrivalMS)
}
