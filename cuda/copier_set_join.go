package cuda

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// joinRuns joins the runs the parts left in the bounce buffer in the
// order of their host sides, whatever the order of their places in the
// set: the store calls that found a set's pages ran on many threads, so
// their values lie in the pool's arenas in the order the calls took
// space, not the set's. Joined in the set's order only, a direct save of
// 16 KiB pages on the H200 moved a set of 16 MiB in 7 to 16 copies, and
// one of 4 KiB pages (calls of 256 KiB) moved at most 5 MiB of a set by
// copy engine, the rest from the SMs (docs/benchmarks.md, "Direct saves
// in one copy a set"). A chain of runs that follow
// each other on the host, in one pinned range, of at least minDMARun
// bytes is one contiguous copy: its runs are laid out one after the
// other in the bounce buffer, their descriptors moved to their new
// places; the descriptors of the other runs are rebased back to their
// host sides. It returns the contiguous copies.
func (d *DescSet) joinRuns() []Copy {
	d.dma, d.byHost = d.dma[:0], d.byHost[:0]
	for _, runs := range d.parts {
		d.byHost = append(d.byHost, runs...)
	}
	slices.SortFunc(d.byHost, func(a, b partRun) int { return cmp.Compare(a.host, b.host) })
	var next int64 // where the next chain kept starts in the bounce buffer
	for lo := 0; lo < len(d.byHost); {
		hi, bytes := d.chainEnd(lo)
		chain := d.byHost[lo:hi]
		if bytes < minDMARun {
			for _, r := range chain {
				d.shiftHosts(r, int64(r.host)-int64(d.bounce.buf)-r.at)
			}
			lo = hi
			continue
		}
		for _, r := range chain {
			d.shiftHosts(r, next+int64(r.host-chain[0].host)-r.at)
		}
		d.dma = append(d.dma, dmaCopy(d.kind, chain[0].host, d.bounce.buf.Add(next), bytes))
		next, lo = next+bytes, hi
	}
	return d.dma
}

// chainEnd returns the end of the chain of runs byHost[lo:hi] that
// follow each other on the host without a gap inside one pinned range,
// and its bytes.
func (d *DescSet) chainEnd(lo int) (int, int64) {
	first := d.byHost[lo]
	limit := d.c.rangeEnd(first.host)
	end := first.host.Add(first.bytes)
	hi := lo + 1
	for ; hi < len(d.byHost); hi++ {
		r := d.byHost[hi]
		if r.host != end || r.host.Add(r.bytes) > limit {
			break
		}
		end = r.host.Add(r.bytes)
	}
	return hi, int64(end - first.host)
}

// shiftHosts moves the host sides of r's descriptors by delta bytes: to
// a new place in the bounce buffer, or back to the host.
func (d *DescSet) shiftHosts(r partRun, delta int64) {
	if delta == 0 {
		return
	}
	field := 0 // a descriptor's source
	if d.kind == DeviceToHost {
		field = 8 // its destination
	}
	b := d.descs.Bytes()
	for i := r.d0; i < r.d1; i++ {
		f := b[i*DescBytes+field:]
		binary.LittleEndian.PutUint64(f, binary.LittleEndian.Uint64(f)+uint64(delta))
	}
}
