package cuda

import (
	"errors"
	"fmt"
)

const (
	// kernelChunk is the most one descriptor moves in kernel mode: larger
	// regions are cut so that the warps of the grid share them.
	kernelChunk = 16 << 10
	// kernelBlock is the kernels' block size, in threads (8 warps).
	kernelBlock = 256
	// kernelWarps is the warps of one block; each copies one descriptor
	// at a time.
	kernelWarps = kernelBlock / 32
	// kernelMaxGrid bounds the grid; warps stride over the rest.
	kernelMaxGrid = 65535
	// minDescs is the descriptor capacity a ring slot starts with.
	minDescs = 256
	// descRingSlots is the descriptor buffers a kernel-mode Copier cycles
	// through: a launch waits only for the launch that used its buffer
	// descRingSlots launches ago.
	descRingSlots = 4
)

// descRing is a ring of descriptor buffers in mapped pinned host memory:
// the kernel reads its descriptors there, so a launch needs no upload,
// and the host rewrites a buffer once the event recorded after the last
// launch that read it completed.
type descRing struct {
	dev   Device
	slots []descSlot
	next  int
}

type descSlot struct {
	mem  *HostMem // nil until first used
	cap  int      // descriptors mem holds
	done Event    // recorded after the launch that last read mem
	used bool     // done was recorded
}

func newDescRing(dev Device, n int) (*descRing, error) {
	r := &descRing{dev: dev, slots: make([]descSlot, n)}
	for i := range r.slots {
		ev, err := dev.NewEvent()
		if err != nil {
			r.close()
			return nil, err
		}
		r.slots[i].done = ev
	}
	return r, nil
}

// acquire returns the next slot, holding at least n descriptors, once the
// launch that last read it finished.
func (r *descRing) acquire(n int) (*descSlot, error) {
	s := &r.slots[r.next]
	r.next = (r.next + 1) % len(r.slots)
	if s.used {
		if err := s.done.Synchronize(); err != nil {
			return nil, fmt.Errorf("waiting for a descriptor buffer: %w", err)
		}
		s.used = false
	}
	if n <= s.cap {
		return s, nil
	}
	capacity := max(minDescs, s.cap)
	for capacity < n {
		capacity *= 2
	}
	if s.mem != nil {
		if err := s.mem.Close(); err != nil {
			return nil, err
		}
		s.mem, s.cap = nil, 0
	}
	h, err := r.dev.AllocHost(int64(capacity * DescBytes))
	if err != nil {
		return nil, fmt.Errorf("descriptor buffer of %d descriptors: %w", capacity, err)
	}
	s.mem, s.cap = h, capacity
	return s, nil
}

func (r *descRing) close() error {
	var errs []error
	for i := range r.slots {
		s := &r.slots[i]
		if s.mem != nil {
			errs = append(errs, s.mem.Close())
		}
		if s.done != nil {
			errs = append(errs, s.done.Destroy())
		}
	}
	r.slots = nil
	return errors.Join(errs...)
}

// launch moves the copies with the scatter (host to device) or gather
// kernel: runs of adjacent host regions go through a bounce buffer with
// one contiguous copy each (before the kernel for loads, after it for
// saves; with SetOverlap on the ahead stream); the kernel copies the
// rest, and the runs' regions between the bounce buffer and the pages.
func (c *Copier) launch(s Stream, kind CopyKind, copies []Copy) error {
	b := c.bounces.take()
	runs, dma, err := c.bounce(s, b, kind, copies)
	if err != nil {
		return err
	}
	c.bounces.tail = nil
	switch {
	case len(dma) == 0:
		return c.launchKernel(s, kind, copies, nil)
	case kind == HostToDevice:
		return c.loadThrough(s, b, copies, runs, dma)
	}
	return c.saveThrough(s, b, copies, runs, dma)
}

// runsStream is the stream that moves the runs: the ahead stream with
// overlap, else s.
func (c *Copier) runsStream(s Stream) (Stream, error) {
	if !c.overlap {
		return s, nil
	}
	return c.bounces.aheadStream()
}

// loadThrough copies a load's runs into bounce buffer b, then launches
// the kernel on s.
func (c *Copier) loadThrough(s Stream, b *bounceSlot, copies []Copy, runs []bounceRun, dma []Copy) error {
	on, err := c.runsStream(s)
	if err != nil {
		return err
	}
	if err := c.bounces.claim(on, b); err != nil {
		return err
	}
	if err := c.dev.Memcpy(on, HostToDevice, dma); err != nil {
		return fmt.Errorf("kernel copy: runs to the bounce buffer: %w", err)
	}
	if on != s {
		if err := c.bounces.pass(on, s, b); err != nil {
			return err
		}
	}
	if err := c.launchKernel(s, HostToDevice, copies, runs); err != nil {
		return err
	}
	return c.bounces.release(s, b)
}

// saveThrough launches the kernel on s, gathering the runs into bounce
// buffer b, then copies them out.
func (c *Copier) saveThrough(s Stream, b *bounceSlot, copies []Copy, runs []bounceRun, dma []Copy) error {
	if err := c.bounces.claim(s, b); err != nil {
		return err
	}
	if err := c.launchKernel(s, DeviceToHost, copies, runs); err != nil {
		return err
	}
	on, err := c.runsStream(s)
	if err != nil {
		return err
	}
	if on != s {
		if err := c.bounces.pass(s, on, b); err != nil {
			return err
		}
		c.bounces.tail = on
	}
	if err := c.dev.Memcpy(on, DeviceToHost, dma); err != nil {
		return fmt.Errorf("kernel copy: runs from the bounce buffer: %w", err)
	}
	return c.bounces.release(on, b)
}

// launchKernel cuts the copies into kernelChunk pieces, writes their
// descriptors (with the host sides of the runs in their bounce buffer)
// into the next ring buffer and launches the kernel over them.
func (c *Copier) launchKernel(s Stream, kind CopyKind, copies []Copy, runs []bounceRun) error {
	n := countChunks(copies, kernelChunk)
	slot, err := c.descs.acquire(n)
	if err != nil {
		return fmt.Errorf("kernel copy: %w", err)
	}
	encodeChunks(slot.mem.Bytes(), kind, copies, runs, kernelChunk)
	k := c.scatter
	if kind == DeviceToHost {
		k = c.gather
	}
	grid := Dim(uint32(min((n+kernelWarps-1)/kernelWarps, kernelMaxGrid)))
	if err := c.dev.Launch(s, k, grid, Dim(kernelBlock), uint64(slot.mem.Ptr()), uint64(n)); err != nil {
		return err
	}
	if err := slot.done.Record(s); err != nil {
		return fmt.Errorf("kernel copy: %w", err)
	}
	slot.used = true
	return nil
}

// countChunks is the number of pieces of at most chunk bytes the copies
// are cut into.
func countChunks(copies []Copy, chunk int64) int {
	n := 0
	for _, c := range copies {
		switch {
		case c.Bytes <= 0:
		case c.Bytes <= chunk:
			n++
		default:
			n += int((c.Bytes + chunk - 1) / chunk)
		}
	}
	return n
}

// encodeChunks writes the descriptors of the copies cut into pieces of at
// most chunk bytes (a multiple of 16, so aligned regions stay aligned)
// into b, the host sides of the runs' copies moved into their bounce
// buffer (runs in order of their copies).
func encodeChunks(b []byte, kind CopyKind, copies []Copy, runs []bounceRun, chunk int64) {
	i, lo := 0, 0
	for _, r := range runs {
		for _, cp := range copies[lo:r.lo] {
			i = encodeCopy(b, i, cp, chunk)
		}
		for _, cp := range copies[r.lo:r.hi] {
			i = encodeCopy(b, i, rebased(kind, cp, r.shift), chunk)
		}
		lo = r.hi
	}
	for _, cp := range copies[lo:] {
		i = encodeCopy(b, i, cp, chunk)
	}
}

// encodeCopy writes the descriptors of c cut into pieces of at most chunk
// bytes into b from descriptor i on, and returns the index past the last.
func encodeCopy(b []byte, i int, c Copy, chunk int64) int {
	if 0 < c.Bytes && c.Bytes <= chunk {
		encodeDesc(b[i*DescBytes:(i+1)*DescBytes], c)
		return i + 1
	}
	for off := int64(0); off < c.Bytes; off += chunk {
		n := min(chunk, c.Bytes-off)
		encodeDesc(b[i*DescBytes:(i+1)*DescBytes], Copy{Dst: c.Dst.Add(off), Src: c.Src.Add(off), Bytes: n})
		i++
	}
	return i
}
