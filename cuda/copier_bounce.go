package cuda

import (
	"errors"
	"fmt"
)

// bounceSlots is the number of device bounce buffers a kernel-mode Copier
// cycles through: with overlap on, the copy engine moves one call's runs
// into or out of one buffer on a stream of its own while the kernel of
// the next (or last) call uses another.
const bounceSlots = 2

// bounceSlot is one device bounce buffer and the events that order its
// uses across the caller's stream and the ahead stream.
type bounceSlot struct {
	buf DevPtr
	cap int64
	// handoff passes buf from one stream to the other: recorded on the
	// stream that filled it (a load's copy, a save's kernel) and waited
	// for by the one that reads it.
	handoff Event
	// freed is recorded after the last use of buf, on freedOn (nil
	// before the first use); a use on the other stream waits for it.
	freed   Event
	freedOn Stream
}

// bounceRing is a kernel-mode Copier's bounce buffers, used in turn, and
// the stream that moves their runs beside the caller's.
type bounceRing struct {
	dev   Device
	slots []bounceSlot
	next  int
	ahead Stream // nil until overlap first needs it
	// tail is the stream the last call's work ends on when it is not the
	// caller's (a save's runs copied out on ahead); nil otherwise.
	tail Stream
}

func newBounceRing(dev Device) (*bounceRing, error) {
	r := &bounceRing{dev: dev, slots: make([]bounceSlot, bounceSlots)}
	for i := range r.slots {
		var err error
		b := &r.slots[i]
		if b.handoff, err = dev.NewEvent(); err == nil {
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

// quiesce waits for the caller's stream s and the ahead stream.
func (r *bounceRing) quiesce(s Stream) error {
	if r.ahead != nil {
		if err := r.ahead.Synchronize(); err != nil {
			return err
		}
	}
	return s.Synchronize()
}

// aheadStream is the stream that moves runs beside the caller's.
func (r *bounceRing) aheadStream() (Stream, error) {
	if r.ahead == nil {
		st, err := r.dev.NewStream()
		if err != nil {
			return nil, fmt.Errorf("kernel copy: ahead stream: %w", err)
		}
		r.ahead = st
	}
	return r.ahead, nil
}

// claim makes stream on wait for the last use of b when that was on the
// other stream.
func (r *bounceRing) claim(on Stream, b *bounceSlot) error {
	if b.freedOn == nil || b.freedOn == on {
		return nil
	}
	if err := on.WaitEvent(b.freed); err != nil {
		return fmt.Errorf("kernel copy: waiting for a bounce buffer: %w", err)
	}
	return nil
}

// pass makes stream to wait for the work queued on from so far, through
// b's handoff event.
func (r *bounceRing) pass(from, to Stream, b *bounceSlot) error {
	if err := b.handoff.Record(from); err != nil {
		return fmt.Errorf("kernel copy: bounce buffer event: %w", err)
	}
	if err := to.WaitEvent(b.handoff); err != nil {
		return fmt.Errorf("kernel copy: waiting for a bounce buffer: %w", err)
	}
	return nil
}

// release marks the end of the use of b queued on stream on so far.
func (r *bounceRing) release(on Stream, b *bounceSlot) error {
	if err := b.freed.Record(on); err != nil {
		return fmt.Errorf("kernel copy: bounce buffer event: %w", err)
	}
	b.freedOn = on
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

// close waits for the ahead stream and frees the buffers, events and
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
		for _, e := range []Event{b.handoff, b.freed} {
			if e != nil {
				errs = append(errs, e.Destroy())
			}
		}
	}
	r.slots = nil
	return errors.Join(errs...)
}
