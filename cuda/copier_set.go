package cuda

import (
	"errors"
	"fmt"
)

// KernelDescs is the number of descriptors kernel mode writes for a copy
// of bytes bytes (none for an empty one).
func KernelDescs(bytes int64) int {
	if bytes <= 0 {
		return 0
	}
	return int((bytes + kernelChunk - 1) / kernelChunk)
}

// A DescSet is one set of kernel-mode copies described ahead of its
// launch, part by part, by the goroutines that find the copies, so that
// the goroutine queueing the device's work only launches it
// (Copier.LaunchSet). The set is a sequence of copies cut into parts of
// consecutive copies; each copy has a place: the copies one after the
// other from offset 0, which is where its host side lies in the set's
// bounce buffer should it belong to a run of adjacent host regions
// moved by a copy engine. So a part writes its descriptors, rebased into
// the bounce buffer, before the other parts are described; at launch the
// runs of all parts that follow each other on the host are joined, laid
// out anew in the bounce buffer, and those found too short rebased back
// (joinRuns).
//
// A DescSet owns its descriptor buffer (mapped pinned host memory) and
// its bounce buffer (device memory). Begin, Drop, LaunchSet and Close
// are for one goroutine; Describe is safe for concurrent use on distinct
// parts between Begin and LaunchSet. Begin and Close must wait until the
// set's last launch finished (an event recorded after it with
// Copier.Record completed, or Copier.Synchronize returned).
type DescSet struct {
	c      *Copier
	kind   CopyKind
	descs  *HostMem // nil until first needed
	cap    int      // descriptors descs holds
	n      int      // descriptors of the set
	bounce bounceSlot
	size   int64 // bytes of bounce a run may use: min(set bytes, maxBounce)
	// parts are the runs each part wrote rebased into the bounce buffer:
	// long ones, and those at the part's edges, which may join runs of
	// other parts.
	parts [][]partRun
	// byHost is scratch for the runs of all parts in the order of their
	// host sides; dma the contiguous copies of the runs kept.
	byHost []partRun
	dma    []Copy
	// joined says Join laid the runs out since the set was begun.
	joined bool
}

// partRun is a run of copies with adjacent host sides that one part
// found and wrote rebased into the bounce buffer at its place: its
// descriptors [d0, d1), its host start, bytes and place in the set.
type partRun struct {
	host      DevPtr
	at, bytes int64
	d0, d1    int
}

// NewDescSet prepares a set of copies for c, which must be in kernel
// mode.
func (c *Copier) NewDescSet() (*DescSet, error) {
	if c.mode != ModeKernel {
		return nil, fmt.Errorf("described sets: copy mode %s: want kernel", c.mode)
	}
	ev, err := c.dev.NewEvent()
	if err != nil {
		return nil, fmt.Errorf("described set: %w", err)
	}
	return &DescSet{c: c, bounce: bounceSlot{handoff: ev}}, nil
}

// Begin readies d for a set of kind of parts parts, descs descriptors
// (the KernelDescs of its copies summed) and bytes bytes (its copies'
// bytes summed), growing its buffers when they must.
func (d *DescSet) Begin(kind CopyKind, parts, descs int, bytes int64) error {
	if err := d.fitDescs(descs); err != nil {
		return err
	}
	d.kind, d.n, d.size, d.joined = kind, descs, 0, false
	if !d.c.noBounce && (kind == HostToDevice || kind == DeviceToHost) && bytes >= minDMARun {
		d.size = min(bytes, maxBounce)
		if err := d.fitBounce(d.size); err != nil {
			return err
		}
	}
	for len(d.parts) < parts {
		d.parts = append(d.parts, nil)
	}
	d.parts = d.parts[:parts]
	for i := range d.parts {
		d.parts[i] = d.parts[i][:0]
	}
	return nil
}

// fitDescs makes the descriptor buffer hold n descriptors.
func (d *DescSet) fitDescs(n int) error {
	if n <= d.cap {
		return nil
	}
	if d.descs != nil {
		if err := d.descs.Close(); err != nil {
			return err
		}
		d.descs, d.cap = nil, 0
	}
	capacity := max(minDescs, n)
	h, err := d.c.dev.AllocHost(int64(capacity * DescBytes))
	if err != nil {
		return fmt.Errorf("descriptor buffer of %d descriptors: %w", capacity, err)
	}
	d.descs, d.cap = h, capacity
	return nil
}

// fitBounce makes the bounce buffer hold n bytes.
func (d *DescSet) fitBounce(n int64) error {
	b := &d.bounce
	if n <= b.cap {
		return nil
	}
	if b.cap > 0 {
		if err := d.c.dev.Free(b.buf); err != nil {
			return err
		}
		b.buf, b.cap = 0, 0
	}
	p, err := d.c.dev.Alloc(n)
	if err != nil {
		return fmt.Errorf("kernel copy: bounce buffer of %d bytes: %w", n, err)
	}
	b.buf, b.cap = p, n
	return nil
}

// IsHole says whether cp is a hole: a copy with neither source nor
// destination, which keeps its place and descriptors in a DescSet but
// moves nothing (a page that failed).
func IsHole(cp Copy) bool { return cp.Src == 0 && cp.Dst == 0 }

// Describe writes the descriptors of one part of the set: copies, whose
// first descriptor is number first of the set and whose first copy's
// place is at. Holes (IsHole) get empty descriptors and break runs.
func (d *DescSet) Describe(part, first int, at int64, copies []Copy) {
	b := d.descs.Bytes()
	runs := d.parts[part][:0]
	for lo := 0; lo < len(copies); {
		cp := copies[lo]
		if IsHole(cp) || d.size == 0 {
			first = encodeAlone(b, first, cp)
			at, lo = at+cp.Bytes, lo+1
			continue
		}
		host := hostSide(d.kind, cp)
		hi, bytes := runEnd(d.kind, copies, lo, d.c.rangeEnd(host))
		edge := lo == 0 || hi == len(copies)
		bounced := at+bytes <= d.size && (bytes >= minDMARun || edge)
		var shift int64
		if bounced {
			shift = int64(d.bounce.buf) + at - int64(host)
		}
		r := partRun{host: host, at: at, bytes: bytes, d0: first}
		for _, cp := range copies[lo:hi] {
			first = encodeCopy(b, first, rebased(d.kind, cp, shift), kernelChunk)
		}
		r.d1 = first
		if bounced {
			runs = append(runs, r)
		}
		at, lo = at+bytes, hi
	}
	d.parts[part] = runs
}

// encodeAlone writes the descriptors of cp, outside any run, from
// descriptor i on (empty ones for a hole), and returns the index past
// the last.
func encodeAlone(b []byte, i int, cp Copy) int {
	if !IsHole(cp) {
		return encodeCopy(b, i, cp, kernelChunk)
	}
	n := KernelDescs(cp.Bytes)
	clear(b[i*DescBytes : (i+n)*DescBytes])
	return i + n
}

// Drop empties n descriptors of a host-to-device set from descriptor
// first on (the copies of a request that failed), before the launch.
func (d *DescSet) Drop(first, n int) error {
	if d.kind != HostToDevice {
		return fmt.Errorf("dropping copies of a %s set: only host-to-device copies can be dropped", d.kind)
	}
	clear(d.descs.Bytes()[first*DescBytes : (first+n)*DescBytes])
	return nil
}

// Close frees d's buffers.
func (d *DescSet) Close() error {
	var errs []error
	if d.descs != nil {
		errs = append(errs, d.descs.Close())
		d.descs, d.cap = nil, 0
	}
	if d.bounce.cap > 0 {
		errs = append(errs, d.c.dev.Free(d.bounce.buf))
		d.bounce.buf, d.bounce.cap = 0, 0
	}
	if d.bounce.handoff != nil {
		errs = append(errs, d.bounce.handoff.Destroy())
		d.bounce.handoff = nil
	}
	return errors.Join(errs...)
}

// Join lays the runs of d, described, out in its bounce buffer
// (joinRuns), the host's work of a launch that need not wait for the
// device: the transfer pipeline joins a set before it records the set's
// start event, so that the set's device time counts no host work.
// LaunchSet joins a set that was not.
func (d *DescSet) Join() {
	d.joinRuns()
	d.joined = true
}

// LaunchSet queues the copies of d, described, joined (Join) unless they
// were: the contiguous copies of its runs through its bounce buffer
// (before the kernel for loads, after it for saves; with SetOverlap on
// the ahead stream) and the kernel over its descriptors on s.
func (c *Copier) LaunchSet(s Stream, d *DescSet) error {
	if d.c != c {
		return errors.New("kernel copy: a described set launched by a copier not its own")
	}
	if !d.joined {
		d.joinRuns()
	}
	d.joined = false
	c.bounces.tail = nil
	dma := d.dma
	if len(dma) == 0 {
		return c.launchDescs(s, d)
	}
	on, err := c.runsStream(s)
	if err != nil {
		return err
	}
	if d.kind == HostToDevice {
		return c.loadSetThrough(s, on, d, dma)
	}
	return c.saveSetThrough(s, on, d, dma)
}

// loadSetThrough copies a load's runs into d's bounce buffer on stream
// on, then launches the kernel on s.
func (c *Copier) loadSetThrough(s, on Stream, d *DescSet, dma []Copy) error {
	if err := c.dev.Memcpy(on, HostToDevice, dma); err != nil {
		return fmt.Errorf("kernel copy: runs to the bounce buffer: %w", err)
	}
	if on != s {
		if err := c.bounces.pass(on, s, &d.bounce); err != nil {
			return err
		}
	}
	return c.launchDescs(s, d)
}

// saveSetThrough launches the kernel on s, then copies a save's runs
// out of d's bounce buffer on stream on.
func (c *Copier) saveSetThrough(s, on Stream, d *DescSet, dma []Copy) error {
	if err := c.launchDescs(s, d); err != nil {
		return err
	}
	if on != s {
		if err := c.bounces.pass(s, on, &d.bounce); err != nil {
			return err
		}
		c.bounces.tail = on
	}
	if err := c.dev.Memcpy(on, DeviceToHost, dma); err != nil {
		return fmt.Errorf("kernel copy: runs from the bounce buffer: %w", err)
	}
	return nil
}

// launchDescs launches the kernel over d's descriptors on s.
func (c *Copier) launchDescs(s Stream, d *DescSet) error {
	if d.n == 0 {
		return nil
	}
	k := c.scatter
	if d.kind == DeviceToHost {
		k = c.gather
	}
	grid := Dim(uint32(min((d.n+kernelWarps-1)/kernelWarps, kernelMaxGrid)))
	return c.dev.Launch(s, k, grid, Dim(kernelBlock), uint64(d.descs.Ptr()), uint64(d.n))
}
