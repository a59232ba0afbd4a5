package transfer

import (
	"errors"
	"slices"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// lane is one stream's worth of transfer machinery: the stream, a copier
// in the chosen mode, staging buffers (none in direct mode), the slot sets
// that cycle through them, the fan-out of store calls and per-batch
// scratch space.
type lane struct {
	o      Options
	geo    Geometry
	stream cuda.Stream
	copier *cuda.Copier
	stage  *staging
	arenas *arenaMap
	fan    fanout
	sets   []*slotSet
	next   int // the set acquire hands out next
	// most is the most pages one set carries: Slots, or in direct mode
	// enough batches for DirectLaunchBytes (directPages).
	most int

	items  []pageItem
	keys   []string
	puts   []pool.PutItem
	codes  []pool.Code
	copies []cuda.Copy
	spans  []int // spans[i]: end of item i's copies in copies
}

// newLane builds a lane whose staging buffers come out of budget bytes.
func newLane(o Options, geo Geometry, arenas *arenaMap, budget int64, parallel int) (*lane, error) {
	geo.Buffers = stagingBuffers(o.StagingBuffers, geo, budget)
	if arenas != nil {
		geo.Buffers = o.StagingBuffers
	}
	l := &lane{o: o, geo: geo, arenas: arenas, most: geo.Slots}
	l.fan = fanout{most: parallel, crew: newCrew(parallel-1, crewPark, o.Stats != nil)}
	if arenas != nil {
		l.most = directPages(geo.Slots, o.maxPageBytes())
	}
	if err := l.open(); err != nil {
		l.close()
		return nil, err
	}
	l.keys = make([]string, geo.Slots)
	l.puts = make([]pool.PutItem, geo.Slots)
	l.codes = make([]pool.Code, geo.Slots)
	return l, nil
}

// open allocates the copier, the stream, the staging and the slot sets.
func (l *lane) open() error {
	var err error
	if l.copier, err = cuda.NewCopier(l.o.Device, l.o.Mode); err != nil {
		return err
	}
	// Staging slots are one contiguous run per batch, which the copy
	// engine moved slower than the kernel's own reads while the next
	// batch was copied into staging (H200 measurements, docs/benchmarks.md).
	l.copier.SetBounce(l.arenas != nil)
	if l.stream, err = l.o.Device.NewStream(); err != nil {
		return err
	}
	if l.arenas == nil {
		if l.stage, err = newStaging(l.o.Device, l.geo); err != nil {
			return err
		}
	}
	for b := range l.geo.Buffers {
		s, err := newSlotSet(l.o.Device, b, l.o.Stats != nil)
		if err != nil {
			return err
		}
		if l.arenas != nil {
			s.direct = newDirectScratch(l.most, maxRegions(l.o.Pools))
		} else {
			s.keys, s.bufs, s.n = make([]string, l.geo.Slots), make([][]byte, l.geo.Slots), make([]int64, l.geo.Slots)
		}
		l.sets = append(l.sets, s)
	}
	return nil
}

// close synchronizes the stream and frees everything.
func (l *lane) close() error {
	var errs []error
	if l.stream != nil {
		errs = append(errs, l.stream.Synchronize())
	}
	for _, s := range l.sets {
		s.finish()
		errs = append(errs, s.destroy())
	}
	if l.stream != nil {
		errs = append(errs, l.stream.Destroy())
	}
	if l.copier != nil {
		errs = append(errs, l.copier.Close())
	}
	errs = append(errs, l.stage.close())
	l.fan.crew.close()
	return errors.Join(errs...)
}

// slotPtr is the device address of slot i of set s.
func (l *lane) slotPtr(s *slotSet) func(i int) cuda.DevPtr {
	return func(i int) cuda.DevPtr { return l.stage.ptr(s.buffer, i) }
}

// describe appends the copies between each batch item's pool value
// (at base(i), regions concatenated) and its GPU page, for kind, and
// records where each item's copies end.
func (l *lane) describe(batch []pageItem, kind cuda.CopyKind, base func(i int) cuda.DevPtr) {
	l.copies, l.spans = l.copies[:0], l.spans[:0]
	for i, it := range batch {
		if b := base(i); b != 0 {
			n := len(l.copies)
			l.copies = slices.Grow(l.copies, it.regions())[:n+it.regions()]
			describePage(l.copies[n:], it, b, kind)
		}
		l.spans = append(l.spans, len(l.copies))
	}
}

// describePage writes into dst (it.regions() long) the copies between
// the page's pool value at base (regions concatenated) and its GPU page,
// for kind.
func describePage(dst []cuda.Copy, it pageItem, base cuda.DevPtr, kind cuda.CopyKind) {
	off := int64(0)
	for r, rb := range it.pool.group.RegionBytes {
		host, gpu := base.Add(off), it.pool.Region(it.page, r)
		dst[r] = cuda.Copy{Dst: gpu, Src: host, Bytes: rb}
		if kind == cuda.DeviceToHost {
			dst[r] = cuda.Copy{Dst: host, Src: gpu, Bytes: rb}
		}
		off += rb
	}
}

// maxRegions is the most regions a page of the pools has.
func maxRegions(pools []*PagePool) int {
	n := 1
	for _, p := range pools {
		n = max(n, len(p.group.RegionBytes))
	}
	return n
}

// compactCopies keeps, in place, the copies of the items keep accepts;
// item i's copies are copies[ends[i-1]:ends[i]].
func compactCopies(copies []cuda.Copy, ends []int, keep func(i int) bool) []cuda.Copy {
	out, start := 0, 0
	for i, end := range ends {
		if keep(i) {
			out += copy(copies[out:], copies[start:end])
		}
		start = end
	}
	return copies[:out]
}

// keep compacts l.copies to those of the items keep accepts.
func (l *lane) keep(keep func(i int) bool) []cuda.Copy {
	return compactCopies(l.copies, l.spans, keep)
}

// nextBatch collects up to l.most items (a set's worth) from
// items[*next:], skipping those of failed jobs.
func (l *lane) nextBatch(items []pageItem, next *int, failed []bool) []pageItem {
	batch := l.items[:0]
	for ; *next < len(items) && len(batch) < l.most; *next++ {
		if !failed[items[*next].job] {
			batch = append(batch, items[*next])
		}
	}
	l.items = batch
	return batch
}

// batchBytes is the sum of the batch's page sizes.
func batchBytes(batch []pageItem) int64 {
	var n int64
	for _, it := range batch {
		n += it.bytes
	}
	return n
}
