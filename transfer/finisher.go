package transfer

// finisher runs what a direct set leaves to do once its copies finished
// (ending a load's views, committing a save's reservations) on a goroutine
// of its own, so that the goroutine queueing copies does not spend its
// time on them: each touches every value's metadata again, about a sixth
// of a 4 KiB direct load's issuing time on the H200 virtual machine. The
// funcs run in the order they were handed over; close waits for all of
// them.
type finisher struct {
	ch   chan []func()
	done chan struct{}
}

// finisherFor is the finisher of a direct call of n pages in sets of
// setPages: none (nil, which runs the funcs at once) for a call of one
// set, since nothing is queued after its copies and the call waits for its
// funcs anyway; a goroutine's start and two hand-overs would only add to
// a small call's time.
func finisherFor(n, setPages int) *finisher {
	if n <= setPages {
		return nil
	}
	return newFinisher()
}

func newFinisher() *finisher {
	f := &finisher{ch: make(chan []func(), 16), done: make(chan struct{})}
	go f.run()
	return f
}

func (f *finisher) run() {
	defer close(f.done)
	for fs := range f.ch {
		runAll(fs)
	}
}

// runAll calls each of fs, skipping nil ones (their store calls never
// ran).
func runAll(fs []func()) {
	for _, fn := range fs {
		if fn != nil {
			fn()
		}
	}
}

// hand hands fs over; a nil finisher runs them at once.
func (f *finisher) hand(fs []func()) {
	switch {
	case f == nil:
		runAll(fs)
	case len(fs) > 0:
		f.ch <- fs
	}
}

// close waits for every func handed over; it does nothing on a nil
// finisher.
func (f *finisher) close() {
	if f != nil {
		close(f.ch)
		<-f.done
	}
}
