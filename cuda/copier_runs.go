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

// bounceRun is a run of copies, copies[lo:hi], of bytes adjacent host
// bytes, whose host sides move to a bounce buffer: each host side plus
// shift.
type bounceRun struct {
	lo, hi int
	bytes  int64
	shift  int64
}

// bounce finds the copies whose host sides (sources of host-to-device,
// destinations of device-to-host copies) form runs of adjacent regions of
// at least minDMARun bytes, places the runs one after the other in bounce
// buffer b, and returns the runs (the kernel reads or writes their host
// sides in b instead: encodeChunks) and the contiguous host<->bounce
// copies that move them (before the kernel for loads, after it for
// saves); none when no run is long enough.
func (c *Copier) bounce(s Stream, b *bounceSlot, kind CopyKind, copies []Copy) ([]bounceRun, []Copy, error) {
	if c.noBounce || (kind != HostToDevice && kind != DeviceToHost) {
		return nil, nil, nil
	}
	c.dma = c.dma[:0]
	c.runs = c.runs[:0]
	var total int64
	for i := 0; i < len(copies); {
		j, bytes := runEnd(kind, copies, i, c.rangeEnd(hostSide(kind, copies[i])))
		if bytes >= minDMARun && total+bytes <= maxBounce {
			c.runs = append(c.runs, bounceRun{lo: i, hi: j, bytes: bytes})
			total += bytes
		}
		i = j
	}
	if total == 0 {
		return nil, nil, nil
	}
	if err := c.bounces.reserve(s, b, total); err != nil {
		return nil, nil, err
	}
	var used int64
	for k := range c.runs {
		r := &c.runs[k]
		host, at := hostSide(kind, copies[r.lo]), b.buf.Add(used)
		r.shift = int64(at) - int64(host)
		c.dma = append(c.dma, dmaCopy(kind, host, at, r.bytes))
		used += r.bytes
	}
	return c.runs, c.dma, nil
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

// rebased is cp with its host side moved by shift.
func rebased(kind CopyKind, cp Copy, shift int64) Copy {
	if kind == HostToDevice {
		cp.Src = cp.Src.Add(shift)
	} else {
		cp.Dst = cp.Dst.Add(shift)
	}
	return cp
}

// dmaCopy is the contiguous copy between a run's host bytes and its place
// in the bounce buffer.
func dmaCopy(kind CopyKind, host, bounce DevPtr, bytes int64) Copy {
	if kind == HostToDevice {
		return Copy{Dst: bounce, Src: host, Bytes: bytes}
	}
	return Copy{Dst: host, Src: bounce, Bytes: bytes}
}
