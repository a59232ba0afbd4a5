package cuda

const (
	// minDMARun is the least a run of adjacent host-side regions carries
	// for kernel mode to move it with a copy engine (one contiguous copy
	// through the device bounce buffer) instead of from the SMs: the SMs'
	// reads of host memory top out below the link's rate, a copy engine's
	// contiguous copy reaches it, and a run this long pays for the copy's
	// fixed cost.
	minDMARun = 1 << 20
	// maxBounce bounds the bounce buffer; runs beyond it move from the SMs.
	maxBounce = 64 << 20
)

// bounce rewrites copies whose host sides (sources of host-to-device,
// destinations of device-to-host copies) form runs of adjacent regions of
// at least minDMARun bytes so that their host side is bounce buffer b
// instead, and returns the copies to run and the contiguous
// host<->bounce copies that move the runs (before the kernel for loads,
// after it for saves). Copies outside such runs are returned unchanged.
func (c *Copier) bounce(s Stream, b *bounceSlot, kind CopyKind, copies []Copy) ([]Copy, []Copy, error) {
	if c.noBounce || (kind != HostToDevice && kind != DeviceToHost) {
		return copies, nil, nil
	}
	c.dma = c.dma[:0]
	c.runs = c.runs[:0]
	var total int64
	for i := 0; i < len(copies); {
		j, bytes := runEnd(kind, copies, i, c.rangeEnd(hostSide(kind, copies[i])))
		if bytes >= minDMARun && total+bytes <= maxBounce {
			c.runs = append(c.runs, [2]int{i, j})
			total += bytes
		}
		i = j
	}
	if total == 0 {
		return copies, nil, nil
	}
	if err := c.bounces.reserve(s, b, total); err != nil {
		return nil, nil, err
	}
	c.work = c.work[:0]
	var used int64
	last := 0
	for _, r := range c.runs {
		c.work = append(c.work, copies[last:r[0]]...)
		bytes := c.rebase(kind, copies[r[0]:r[1]], b.buf.Add(used))
		c.dma = append(c.dma, dmaCopy(kind, hostSide(kind, copies[r[0]]), b.buf.Add(used), bytes))
		used += bytes
		last = r[1]
	}
	c.work = append(c.work, copies[last:]...)
	return c.work, c.dma, nil
}

// hostSide is a copy's host address.
func hostSide(kind CopyKind, cp Copy) DevPtr {
	if kind == HostToDevice {
		return cp.Src
	}
	return cp.Dst
}

// runEnd returns the end of the run of copies starting at i whose host
// sides follow each other without a gap and end by limit, and the run's
// bytes.
func runEnd(kind CopyKind, copies []Copy, i int, limit DevPtr) (int, int64) {
	start := hostSide(kind, copies[i])
	end := start.Add(copies[i].Bytes)
	j := i + 1
	for ; j < len(copies); j++ {
		h := hostSide(kind, copies[j])
		next := h.Add(copies[j].Bytes)
		if h != end || next > limit {
			break
		}
		end = next
	}
	return j, int64(end - start)
}

// pinnedRanges is a device's map of its pinned host memory: pinnedEnd is
// the end of the pinned range (one allocation or registration) that
// holds p. Two ranges may follow each other without a gap in the
// device's addresses, but a copy's host side must lie inside one.
type pinnedRanges interface {
	pinnedEnd(p DevPtr) (DevPtr, bool)
}

// rangeEnd is the end of the pinned range holding host address p, past
// which a run must not go; the top of the address space when the device
// does not say (a copy outside pinned memory fails when queued).
func (c *Copier) rangeEnd(p DevPtr) DevPtr {
	if r, ok := c.dev.(pinnedRanges); ok {
		if end, ok := r.pinnedEnd(p); ok {
			return end
		}
	}
	return ^DevPtr(0)
}

// rebase appends run to c.work with its host sides pointing into a
// bounce buffer from at on, and returns the run's bytes.
func (c *Copier) rebase(kind CopyKind, run []Copy, at DevPtr) int64 {
	var off int64
	for _, cp := range run {
		p := at.Add(off)
		if kind == HostToDevice {
			cp.Src = p
		} else {
			cp.Dst = p
		}
		c.work = append(c.work, cp)
		off += cp.Bytes
	}
	return off
}

// dmaCopy is the contiguous copy between a run's host bytes and its place
// in the bounce buffer.
func dmaCopy(kind CopyKind, host, bounce DevPtr, bytes int64) Copy {
	if kind == HostToDevice {
		return Copy{Dst: bounce, Src: host, Bytes: bytes}
	}
	return Copy{Dst: host, Src: bounce, Bytes: bytes}
}
