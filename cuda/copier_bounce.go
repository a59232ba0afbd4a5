package cuda

import (
	"errors"
	"fmt"
)

// bounceSlots is the number of device bounce buffers a kernel-mode Copier
// cycles through: with fill-ahead on, the copy engine fills one with a
// load's runs while the kernel scatters the previous load's from another.
const bounceSlots = 2

// bounceSlot is one device bounce buffer and the events that order its
// uses across the caller's stream and the fill-ahead stream.
type bounceSlot struct {
	buf DevPtr
	cap int64
	// filled is recorded on the fill-ahead stream after a load's runs
	// were copied into buf; the caller's stream waits for it before the
	// kernel reads them.
	filled Event
	// freed is recorded on the caller's stream after the last work there
	// that reads or writes buf; the fill-ahead stream waits for it before
	// it writes buf again.
	freed Event
	// used says freed was recorded.
	used bool
}

// bounceRing is a kernel-mode Copier's bounce buffers, used in turn, and
// the stream that fills them ahead of the caller's.
type bounceRing struct {
	dev   Device
	slots []bounceSlot
	next  int
	ahead Stream // nil until a load is first filled ahead
}

func newBounceRing(dev Device) (*bounceRing, error) {
	r := &bounceRing{dev: dev, slots: make([]bounceSlot, bounceSlots)}
	for i := range r.slots {
		var err error
		b := &r.slots[i]
		if b.filled, err = dev.NewEvent(); err == nil {
			b.freed, err = dev.NewEvent()
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("bounce buffer events: %w", err), r.close())
		}
	}
	return r, nil
}

// take returns the next bounce buffer in turn.
func (r *bounceRing) take() *bounceSlot {
	b := &r.slots[r.next]
	r.next = (r.next + 1) % len(r.slots)
	return b
}

// reserve makes b hold at least n bytes, growing it by doubling (at most
// maxBounce); the old buffer is freed once both streams finished with it.
func (r *bounceRing) reserve(s Stream, b *bounceSlot, n int64) error {
	if n <= b.cap {
		return nil
	}
	capacity := max(minDMARun, b.cap)
	for capacity < n {
		capacity *= 2
	}
	capacity = min(capacity, maxBounce)
	if b.cap > 0 {
		if err := r.quiesce(s); err != nil {
			return fmt.Errorf("kernel copy: before growing the bounce buffer: %w", err)
		}
		if err := r.free(b); err != nil {
			return err
		}
	}
	p, err := r.dev.Alloc(capacity)
	if err != nil {
		return fmt.Errorf("kernel copy: bounce buffer of %d bytes: %w", capacity, err)
	}
	b.buf, b.cap = p, capacity
	return nil
}

// quiesce waits for the caller's stream s and the fill-ahead stream.
func (r *bounceRing) quiesce(s Stream) error {
	if r.ahead != nil {
		if err := r.ahead.Synchronize(); err != nil {
			return err
		}
	}
	return s.Synchronize()
}

// fillAhead queues a load's contiguous copies into b on the fill-ahead
// stream, once the caller's stream finished its last use of b, and makes
// s wait for them: the copy engine fills b while s still runs the work
// queued before (the previous load's kernel).
func (r *bounceRing) fillAhead(s Stream, b *bounceSlot, dma []Copy) error {
	if r.ahead == nil {
		st, err := r.dev.NewStream()
		if err != nil {
			return fmt.Errorf("kernel copy: fill-ahead stream: %w", err)
		}
		r.ahead = st
	}
	if b.used {
		if err := r.ahead.WaitEvent(b.freed); err != nil {
			return fmt.Errorf("kernel copy: fill-ahead wait: %w", err)
		}
	}
	if err := r.dev.Memcpy(r.ahead, HostToDevice, dma); err != nil {
		return fmt.Errorf("kernel copy: runs to the bounce buffer: %w", err)
	}
	if err := b.filled.Record(r.ahead); err != nil {
		return fmt.Errorf("kernel copy: fill-ahead event: %w", err)
	}
	if err := s.WaitEvent(b.filled); err != nil {
		return fmt.Errorf("kernel copy: waiting for the fill-ahead: %w", err)
	}
	return nil
}

// release marks the end of s's use of b queued so far.
func (r *bounceRing) release(s Stream, b *bounceSlot) error {
	if err := b.freed.Record(s); err != nil {
		return fmt.Errorf("kernel copy: bounce buffer event: %w", err)
	}
	b.used = true
	return nil
}

func (r *bounceRing) free(b *bounceSlot) error {
	if b.cap == 0 {
		return nil
	}
	err := r.dev.Free(b.buf)
	b.buf, b.cap = 0, 0
	return err
}

// close waits for the fill-ahead stream and frees the buffers, events and
// stream; the caller's stream must have been synchronized.
func (r *bounceRing) close() error {
	var errs []error
	if r.ahead != nil {
		errs = append(errs, r.ahead.Synchronize(), r.ahead.Destroy())
		r.ahead = nil
	}
	for i := range r.slots {
		b := &r.slots[i]
		errs = append(errs, r.free(b))
		for _, e := range []Event{b.filled, b.freed} {
			if e != nil {
				errs = append(errs, e.Destroy())
			}
		}
	}
	r.slots = nil
	return errors.Join(errs...)
}
