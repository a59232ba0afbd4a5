package engine

import (
	"errors"
	"fmt"
	"math"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
)

// arrivals reads requests from a workload source and says when each
// arrives. Open loop (clients 0), at its arrival time; closed loop
// (Config.Concurrency), clients clients each send the next request of the
// source when their last one finished (completed or failed): a request
// arrives as soon as fewer than clients are in flight, at that moment of
// the modelled clock, its own arrival time ignored.
//
// A goroutine reads the source and hashes each prompt and the blocks of
// its output (hashArrival, a batch of prompts at a time: arrivalBatcher)
// up to readAhead requests (and a batch) ahead of the engine,
// on another core: the engine runs on one goroutine, and reading,
// synthesising and hashing prompts are a fifth of a replay's work.
type arrivals struct {
	clients int
	chains  *chainPool // where the reader takes its chains
	ahead   <-chan arrival
	quit    chan struct{} // closed by stop
	exited  chan struct{} // closed when the reader returned
	srcErr  error         // written by the reader before it closes ahead
	head    arrival
	hasHead bool
	done    bool
}

// readAhead is how many hashed requests wait for the engine at most.
const readAhead = 64

var errStopped = errors.New("replay stopped")

func newArrivals(src workload.Source, clients int, k keys.Settings) *arrivals {
	ahead := make(chan arrival, readAhead)
	a := &arrivals{clients: clients, chains: &chainPool{k: k}, ahead: ahead, quit: make(chan struct{}), exited: make(chan struct{})}
	go a.read(src, ahead)
	return a
}

// read hashes the requests of src into ahead, a batch at a time
// (arrivalBatcher), until the source ends or stop is called. The requests
// read before the source fails are hashed and sent before its error.
func (a *arrivals) read(src workload.Source, ahead chan<- arrival) {
	defer close(a.exited)
	defer close(ahead)
	var b arrivalBatcher
	send := func() error {
		for _, x := range b.hash(a.chains.newChain) {
			select {
			case ahead <- x:
			case <-a.quit:
				return errStopped
			}
		}
		return nil
	}
	err := src.Each(func(r workload.Request) error {
		if !b.fits(r) {
			if err := send(); err != nil {
				return err
			}
		}
		b.add(r)
		return nil
	})
	if !errors.Is(err, errStopped) {
		if serr := send(); err == nil {
			err = serr
		}
	}
	if err != nil && !errors.Is(err, errStopped) {
		a.srcErr = fmt.Errorf("reading requests from %s: %w", src.Name(), err)
	}
}

// stop ends the reading and waits for the reader to return.
func (a *arrivals) stop() {
	close(a.quit)
	<-a.exited
}

func (a *arrivals) peek() (arrival, bool) {
	if !a.hasHead && !a.done {
		a.head, a.hasHead = <-a.ahead
		a.done = !a.hasHead
	}
	return a.head, a.hasHead
}

func (a *arrivals) take() { a.hasHead, a.head = false, arrival{} }

// err is the source's error; call it after stop.
func (a *arrivals) err() error { return a.srcErr }

// due takes the next request when it is due at now (modelled
// milliseconds) with inFlight requests in flight, and returns it with its
// arrival time.
func (a *arrivals) due(now float64, inFlight int64) (arrival, float64, bool) {
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
	case float64(w.w.ArrivalMS) > now:
		return w, 0, false
	}
	a.take()
	return w, float64(w.w.ArrivalMS), true
}

// nextAt is when the next request arrives, +Inf when none is left or,
// closed loop, when it waits for a client (a finish, not known ahead).
func (a *arrivals) nextAt() float64 {
	w, ok := a.peek()
	if !ok || a.clients > 0 {
		return math.Inf(1)
	}
	return float64(w.w.ArrivalMS)
}
