package transfer

import (
	"errors"
	"fmt"

	"github.com/kvctl/kvctl/cuda"
)

// lane is one stream's worth of transfer machinery: the stream, a copier
// in the chosen mode, staging slots (none in direct mode) and per-batch
// scratch space.
type lane struct {
	o      Options
	geo    Geometry
	stream cuda.Stream
	copier *cuda.Copier
	stage  *staging
	arenas *arenaMap

	items  []pageItem
	keys   []string
	bufs   [][]byte
	n      []int64
	copies []cuda.Copy
	spans  []int // spans[i]: end of item i's copies in copies
}

func newLane(o Options, geo Geometry, arenas *arenaMap) (*lane, error) {
	l := &lane{o: o, geo: geo, arenas: arenas}
	var err error
	if l.copier, err = cuda.NewCopier(o.Device, o.Mode); err != nil {
		return nil, err
	}
	if l.stream, err = o.Device.NewStream(); err != nil {
		l.close()
		return nil, err
	}
	if arenas == nil {
		if l.stage, err = newStaging(o.Device, geo); err != nil {
			l.close()
			return nil, err
		}
	}
	l.keys = make([]string, geo.Slots)
	l.bufs = make([][]byte, geo.Slots)
	l.n = make([]int64, geo.Slots)
	return l, nil
}

// close synchronizes the stream and frees everything.
func (l *lane) close() error {
	var errs []error
	if l.stream != nil {
		errs = append(errs, l.stream.Synchronize(), l.stream.Destroy())
	}
	if l.copier != nil {
		errs = append(errs, l.copier.Close())
	}
	errs = append(errs, l.stage.close())
	return errors.Join(errs...)
}

// describe appends the copies between each batch item's pool value
// (at base(i), regions concatenated) and its GPU page, for kind, and
// records where each item's copies end.
func (l *lane) describe(batch []pageItem, kind cuda.CopyKind, base func(i int) cuda.DevPtr) {
	l.copies, l.spans = l.copies[:0], l.spans[:0]
	for i, it := range batch {
		if base(i) != 0 {
			off := int64(0)
			for r, rb := range it.pool.group.RegionBytes {
				host, gpu := base(i).Add(off), it.pool.Region(it.page, r)
				c := cuda.Copy{Dst: gpu, Src: host, Bytes: rb}
				if kind == cuda.DeviceToHost {
					c = cuda.Copy{Dst: host, Src: gpu, Bytes: rb}
				}
				l.copies = append(l.copies, c)
				off += rb
			}
		}
		l.spans = append(l.spans, len(l.copies))
	}
}

// keep compacts l.copies to those of the items keep accepts.
func (l *lane) keep(batch []pageItem, keep func(i int) bool) []cuda.Copy {
	out, start := 0, 0
	for i := range batch {
		end := l.spans[i]
		if keep(i) {
			out += copy(l.copies[out:], l.copies[start:end])
		}
		start = end
	}
	return l.copies[:out]
}

// run queues copies and synchronizes, charging unstage (or stage) and
// sync; the stream is synchronized even when queueing failed, so that no
// copy is left in flight over the staging slots.
func (l *lane) run(copies []cuda.Copy, kind cuda.CopyKind, phase Phase, clk *phaseClock) error {
	err := l.copier.Copy(l.stream, kind, copies)
	clk.lap(phase)
	serr := l.stream.Synchronize()
	clk.lap(PhaseSync)
	if err != nil {
		return fmt.Errorf("%s: %w", phase, err)
	}
	if serr != nil {
		return fmt.Errorf("%s: stream sync: %w", phase, serr)
	}
	return nil
}

// nextBatch collects up to Slots items from items[*next:], skipping those
// of failed jobs.
func (l *lane) nextBatch(items []pageItem, next *int, failed []bool) []pageItem {
	batch := l.items[:0]
	for ; *next < len(items) && len(batch) < l.geo.Slots; *next++ {
		if !failed[items[*next].job] {
			batch = append(batch, items[*next])
		}
	}
	l.items = batch
	return batch
}
