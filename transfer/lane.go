package transfer

import (
	"errors"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/crew"
)

// lane is one stream's worth of transfer machinery: the stream, a copier
// in the chosen mode, staging buffers (none in direct mode), the slot sets
// that cycle through them, the crew that runs the sets' store calls and
// per-set scratch space.
type lane struct {
	o      Options
	geo    Geometry
	stream cuda.Stream
	copier *cuda.Copier
	stage  *staging
	// unregister undoes the staging's registration with the pool
	// (pool.BufferRegistrar), when the pool took it.
	unregister func() error
	arenas     *arenaMap
	crew       *crew.Crew
	// threads is the crew's size, the goroutine waiting for a task
	// included (Options.Parallel).
	threads int
	sets    []*slotSet
	next    int // the set acquire hands out next
	// origin is recorded before a call's first copies, when calls are
	// timed (deviceTimer); nil otherwise.
	origin cuda.Event

	keys []string
	// resolved is the room of the last call's pages, reused by the next.
	resolved []pageItem
}

// newLane builds a lane whose staging buffers of sets of shape come out
// of budget bytes and whose crew has threads threads.
func newLane(o Options, geo Geometry, arenas *arenaMap, shape setShape, budget int64, threads int) (*lane, error) {
	parts := 1
	if arenas != nil {
		geo = geo.withDirectSets(o.StagingBuffers)
	} else {
		shape, parts = shape.parted(o.Pool, geo.SlotBytes, threads)
		geo = geo.withStagedSets(shape, o.StagingBuffers, budget, threads)
	}
	if parts > 1 {
		geo.PageParts = parts
	}
	l := &lane{o: o, geo: geo, arenas: arenas, threads: threads}
	l.crew = crew.New(threads-1, crew.DefaultPark, cpuClock(o.Stats != nil))
	if err := l.open(); err != nil {
		l.close()
		return nil, err
	}
	l.keys = make([]string, geo.Slots)
	return l, nil
}

// open allocates the copier, the stream, the staging and the slot sets.
func (l *lane) open() error {
	var err error
	if l.copier, err = cuda.NewCopier(l.o.Device, l.o.Mode); err != nil {
		return err
	}
	// A staged set is one run in staging, which kernel mode moves with
	// one contiguous copy and the kernel on the device (the bounce).
	l.copier.SetBounce(l.arenas != nil || !l.o.stagedZeroCopy)
	// A load's host side (staging the crew filled, or pool values in
	// place) is final when its copies are queued, and what a save
	// copies out (staging, reservations) is read only once the set's
	// done event completed (recorded with the copier): so the copy
	// engine may move one set's runs while the kernel of another runs.
	l.copier.SetOverlap(true)
	if l.stream, err = l.o.Device.NewStream(); err != nil {
		return err
	}
	if l.arenas == nil {
		if l.stage, err = newStaging(l.o.Device, l.geo); err != nil {
			return err
		}
		if l.unregister, err = registerStaging(l.o.Pool, l.stage); err != nil {
			return err
		}
	}
	if l.o.Stats != nil {
		if l.origin, err = l.o.Device.NewEvent(); err != nil {
			return err
		}
	}
	for b := range l.geo.Buffers {
		s, err := newSlotSet(l.o.Device, b, l.o.Stats != nil)
		if err != nil {
			return err
		}
		s.scratch = newSetScratch(l.geo.SetPages, maxRegions(l.o.Pools))
		l.sets = append(l.sets, s)
		// In kernel mode the store calls write the descriptors of direct
		// sets and of staged loads' sets. A staged save's goroutine writes
		// its sets' descriptors itself, in one pass (describeStaged), while
		// the crew puts the sets before: described on the crew, they
		// queued behind those puts and measured slower on the H200 on
		// 2026-12-04 (docs/benchmarks.md).
		if l.o.Mode == cuda.ModeKernel {
			if s.descs, err = l.copier.NewDescSet(); err != nil {
				return err
			}
		}
	}
	return nil
}

// close synchronizes the stream and frees everything.
func (l *lane) close() error {
	var errs []error
	switch {
	case l.stream != nil && l.copier != nil:
		errs = append(errs, l.copier.Synchronize(l.stream))
	case l.stream != nil:
		errs = append(errs, l.stream.Synchronize())
	}
	for _, s := range l.sets {
		s.finish()
		errs = append(errs, s.destroy())
	}
	if l.origin != nil {
		errs = append(errs, l.origin.Destroy())
	}
	if l.stream != nil {
		errs = append(errs, l.stream.Destroy())
	}
	if l.copier != nil {
		errs = append(errs, l.copier.Close())
	}
	if l.unregister != nil {
		errs = append(errs, l.unregister())
	}
	errs = append(errs, l.stage.close())
	l.crew.Close()
	return errors.Join(errs...)
}

// parts is how many calls on the crew each page of a staged set moves in:
// Geometry.PageParts when the lane moves pages in parts
// (setShape.parted), else 1.
func (l *lane) parts() int { return max(1, l.geo.PageParts) }

// resolve resolves the page references of n jobs (pagesOf(j) are job
// j's) on the lane's crew, into the room of the lane's last call, running
// meanwhile while the crew starts (resolveAll).
func (l *lane) resolve(n int, pagesOf func(j int) []PageRef, meanwhile func()) ([]pageItem, int, error) {
	items, bad, err := resolveAll(l.crew, l.resolved, l.o.Pools, n, pagesOf, meanwhile)
	l.resolved = items
	return items, bad, err
}

// describePage writes into dst (it.regions() long) the copies between
// the page's pool value at base (regions concatenated) and its GPU page,
// for kind.
func describePage(dst []cuda.Copy, it pageItem, base cuda.DevPtr, kind cuda.CopyKind) {
	off := int64(0)
	for r, rb := range it.pool.group.RegionBytes {
		host, gpu := base.Add(off), it.pool.Region(int(it.page), r)
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

// MinCallBytes is the least a staged store call moves when a set is
// split over the crew's threads (Options.Parallel): smaller sets make
// fewer calls.
const MinCallBytes = 128 << 10

// callPages is how many pages each store call of a staged set of k
// pages takes: at most a batch (Slots), and few enough that the crew's
// threads share the set, about four calls each, but not below
// MinCallBytes a call. A lane of one thread makes one call per batch.
func (l *lane) callPages(k int) int {
	if l.threads <= 1 {
		return l.geo.Slots
	}
	share := (k + 4*l.threads - 1) / (4 * l.threads)
	least := int(max(1, MinCallBytes/max(l.geo.SlotBytes, 1)))
	return max(1, min(l.geo.Slots, max(share, least)))
}

// splitSets is how many sets a staged call smaller than that many full
// sets is split into, so that the store calls of one set overlap the
// copies of another, and minSetBytes the least such a set carries.
const (
	splitSets   = 4
	minSetBytes = 2 << 20
)

// cyclePages is the pages of a full cycle of the lane's sets: what an
// async worker loads in one call.
func (l *lane) cyclePages() int { return l.geo.SetPages * len(l.sets) }

// setPagesFor is the most pages of each set of a call of n pages:
// SetPages, but a staged call smaller than splitSets sets is split into
// splitSets sets of at least minSetBytes.
func (l *lane) setPagesFor(n int) int {
	if l.arenas != nil {
		return l.geo.SetPages
	}
	least := int(max(1, minSetBytes/max(l.geo.SlotBytes, 1)))
	return min(l.geo.SetPages, max(least, (n+splitSets-1)/splitSets))
}

// nextBatch collects up to most items (a set's worth) from items[*next:],
// skipping those of failed jobs: with no failed jobs (failed nil) it is
// items[*next:] itself, up to most, else a copy. Either way it stays as it
// is for the rest of the call, so that a set may keep it as its pages
// (slotSet.takeItems) without copying them.
func (l *lane) nextBatch(items []pageItem, next *int, failed []bool, most int) []pageItem {
	if failed == nil {
		start := *next
		*next = min(start+most, len(items))
		return items[start:*next:*next]
	}
	batch := make([]pageItem, 0, min(most, len(items)-*next))
	for ; *next < len(items) && len(batch) < most; *next++ {
		if !failed[items[*next].job] {
			batch = append(batch, items[*next])
		}
	}
	return batch
}
