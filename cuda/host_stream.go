package cuda

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// hostQueueDepth bounds a host stream's queue; a caller queueing more
// waits until the stream catches up.
const hostQueueDepth = 256

// hostStream runs queued operations in order on its own goroutine.
type hostStream struct {
	// mu guards closed against concurrent sends; Destroy takes it
	// exclusively before closing ops.
	mu     sync.RWMutex
	closed bool
	ops    chan func() error
	done   chan struct{}

	errMu sync.Mutex
	err   error // first failure since the last Synchronize
}

func newHostStream() *hostStream {
	s := &hostStream{ops: make(chan func() error, hostQueueDepth), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *hostStream) run() {
	defer close(s.done)
	for op := range s.ops {
		if err := op(); err != nil {
			s.errMu.Lock()
			if s.err == nil {
				s.err = err
			}
			s.errMu.Unlock()
		}
	}
}

// enqueue queues op; it fails once the stream is destroyed.
func (s *hostStream) enqueue(op func() error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return errors.New("stream destroyed")
	}
	s.ops <- op
	return nil
}

// Synchronize waits for the queued work and returns the first failure since
// the last Synchronize.
func (s *hostStream) Synchronize() error {
	done := make(chan struct{})
	if err := s.enqueue(func() error { close(done); return nil }); err != nil {
		return err
	}
	<-done
	s.errMu.Lock()
	defer s.errMu.Unlock()
	err := s.err
	s.err = nil
	return err
}

// WaitEvent queues a wait for the event's latest recorded work.
func (s *hostStream) WaitEvent(e Event) error {
	he, ok := e.(*hostEvent)
	if !ok {
		return fmt.Errorf("wait event: %T is not a host emulation event", e)
	}
	target := he.target()
	return s.enqueue(func() error {
		he.waitFor(target)
		return nil
	})
}

// Destroy lets queued work finish and stops the stream's goroutine.
func (s *hostStream) Destroy() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("stream destroyed twice")
	}
	s.closed = true
	close(s.ops)
	s.mu.Unlock()
	<-s.done
	return nil
}

// hostEvent completes when a stream reaches the point it was recorded at.
type hostEvent struct {
	mu        sync.Mutex
	cond      *sync.Cond
	recorded  uint64    // records so far
	completed uint64    // highest record completed
	at        time.Time // when the highest record completed
}

func newHostEvent() *hostEvent {
	e := &hostEvent{}
	e.cond = sync.NewCond(&e.mu)
	return e
}

func (e *hostEvent) target() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.recorded
}

func (e *hostEvent) waitFor(target uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for e.completed < target {
		e.cond.Wait()
	}
}

// Record marks the current end of the stream's work.
func (e *hostEvent) Record(s Stream) error {
	hs, ok := s.(*hostStream)
	if !ok {
		return fmt.Errorf("record event: %T is not a host emulation stream", s)
	}
	e.mu.Lock()
	e.recorded++
	seq := e.recorded
	e.mu.Unlock()
	return hs.enqueue(func() error {
		now := time.Now()
		e.mu.Lock()
		if seq > e.completed {
			e.completed, e.at = seq, now
		}
		e.mu.Unlock()
		e.cond.Broadcast()
		return nil
	})
}

// Synchronize waits for the latest record to complete.
func (e *hostEvent) Synchronize() error {
	e.waitFor(e.target())
	return nil
}

// Since returns the time from start's completion to e's.
func (e *hostEvent) Since(start Event) (time.Duration, error) {
	hs, ok := start.(*hostEvent)
	if !ok {
		return 0, fmt.Errorf("elapsed time: %T is not a host emulation event", start)
	}
	a, err := hs.completedAt()
	if err != nil {
		return 0, fmt.Errorf("elapsed time: start %w", err)
	}
	b, err := e.completedAt()
	if err != nil {
		return 0, fmt.Errorf("elapsed time: end %w", err)
	}
	return b.Sub(a), nil
}

func (e *hostEvent) completedAt() (time.Time, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.recorded == 0:
		return time.Time{}, errors.New("event was never recorded")
	case e.completed < e.recorded:
		return time.Time{}, errors.New("event has not completed")
	}
	return e.at, nil
}

// Destroy releases the event (nothing to free in emulation).
func (e *hostEvent) Destroy() error { return nil }
