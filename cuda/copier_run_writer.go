package cuda

import "fmt"

// A RunWriter describes one part of a DescSet that is a single run: copies
// whose host sides follow each other from the run's start, as a staged
// set's pages lie in their staging buffer. It writes each piece's
// descriptors as the piece is added, with no Copy for it and no search for
// runs, so that the goroutine describing a staged save's set on its own
// (while the crew puts the set before) passes over the pages once.
type RunWriter struct {
	d    *DescSet
	b    []byte
	part int
	run  partRun
	next int    // the descriptor the next piece starts at
	side DevPtr // where the next piece's host side lies: in the bounce buffer, or on the host
	end  DevPtr // where the run's host side ends, as side does
	// bounced says the run moves through the bounce buffer; save that
	// its copies are the device's to the host.
	bounced, save bool
}

// BeginRun starts part part of d (begun with Begin) as one run of bytes
// bytes whose host side begins at host, whose first descriptor is number
// first of the set and whose place in the set is at. The run moves through
// the set's bounce buffer, with one contiguous copy, when Describe would
// move it so: it fits the buffer from at and lies in one pinned range.
func (d *DescSet) BeginRun(part, first int, at int64, host DevPtr, bytes int64) RunWriter {
	w := RunWriter{d: d, b: d.descs.Bytes(), part: part, next: first, side: host, save: d.kind == DeviceToHost}
	w.run = partRun{host: host, at: at, bytes: bytes, d0: first}
	w.bounced = d.size > 0 && at+bytes <= d.size && host.Add(bytes) <= d.c.rangeEnd(host)
	if w.bounced {
		w.side = d.bounce.buf.Add(at)
	}
	w.end = w.side.Add(bytes)
	return w
}

// Add describes the run's next piece: bytes bytes at gpu on the device,
// whose host side follows the piece before.
func (w *RunWriter) Add(gpu DevPtr, bytes int64) {
	cp := Copy{Dst: gpu, Src: w.side, Bytes: bytes}
	if w.save {
		cp = Copy{Dst: w.side, Src: gpu, Bytes: bytes}
	}
	w.next = encodeCopy(w.b, w.next, cp, kernelChunk)
	w.side = w.side.Add(bytes)
}

// End ends the run's part, and fails when the pieces added do not make up
// the bytes BeginRun was given or their descriptors overran the set's.
func (w *RunWriter) End() error {
	if w.side != w.end || w.next > w.d.n {
		return fmt.Errorf("described run: pieces of %d bytes in %d descriptors, want %d bytes in at most %d",
			w.run.bytes-int64(w.end-w.side), w.next-w.run.d0, w.run.bytes, w.d.n-w.run.d0)
	}
	w.run.d1 = w.next
	runs := w.d.parts[w.part][:0]
	if w.bounced {
		runs = append(runs, w.run)
	}
	w.d.parts[w.part] = runs
	return nil
}
