package transfer

import (
	"context"
	"fmt"
	"slices"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/crew"
	"github.com/kvctl/kvctl/stats"
)

// loadCall is the state of one load on a lane.
type loadCall struct {
	l       *lane
	p       *pipeline
	items   []pageItem
	results []LoadResult
	failed  []bool
	// failedIn is, per request, the set (counted from 1) in which its
	// first missing page was found; 0 while none was.
	failedIn []int
	// anyFailed says a request failed (failed has a true).
	anyFailed bool
	next      int
	sets      int // sets started
	calls     int64
}

// path is the load's way through the pipeline: the crew looks the set's
// pages up (staged: Get into the set's staging buffer; direct: views in
// the pool's arenas) and describes their copies (in kernel mode, writes
// their descriptors), then the copies of the pages of requests still
// whole are queued.
func (c *loadCall) path(ctx context.Context) path {
	lookup := lookupFunc(c.getChunks)
	switch {
	case c.l.arenas != nil:
		lookup = c.viewChunks
	case c.l.parts() > 1:
		lookup = c.getParts
	}
	return path{
		start:  func() (*setWork, error) { return c.start(ctx, lookup) },
		finish: c.finishLookups,
		second: c.unstage,
	}
}

// lookupFunc posts the lookups of set s's k pages to the crew, in store
// calls of at most chunk pages.
type lookupFunc func(ctx context.Context, s *slotSet, k, chunk int) *crew.Task

// callChunk is the most pages of one store call of a set of k pages:
// Slots for direct views, one for Gets of parts (each page then takes
// the lane's parts calls), else callPages.
func (c *loadCall) callChunk(k int) int {
	switch {
	case c.l.arenas != nil:
		return c.l.geo.Slots
	case c.l.parts() > 1:
		return 1
	}
	return c.l.callPages(k)
}

// start takes the next set's pages, skipping requests already failed,
// and posts their lookups; nil when no page is left.
func (c *loadCall) start(ctx context.Context, lookup lookupFunc) (*setWork, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	failed := c.failed
	if !c.anyFailed {
		failed = nil
	}
	batch := c.l.nextBatch(c.items, &c.next, failed, c.l.setPagesFor(len(c.items)))
	if len(batch) == 0 {
		return nil, nil
	}
	s, err := c.p.acquire()
	if err != nil {
		return nil, err
	}
	chunk := c.callChunk(len(batch))
	if err := s.takeItems(batch, cuda.HostToDevice, callsOf(len(batch), chunk)*c.l.parts()); err != nil {
		return nil, err
	}
	task := lookup(ctx, s, len(batch), chunk)
	c.p.clk.lap(stats.PhaseDescribe)
	c.sets++
	return &setWork{set: s, task: task, chunk: chunk, seq: c.sets}, nil
}

// getChunks posts the Gets of set s's k pages into its staging buffer
// (one page after the other) in calls of chunk pages, which also
// describe the copies of the pages returned whole (and, in kernel mode,
// write their descriptors into s.descs) and flag the calls with a page
// that was not.
func (c *loadCall) getChunks(ctx context.Context, s *slotSet, k, chunk int) *crew.Task {
	l, d := c.l, s.scratch
	return chunkCalls(l.crew, k, chunk, func(j, lo, hi int) error {
		for i := lo; i < hi; i++ {
			d.keys[i], d.vals[i] = s.items[i].key, l.stage.bytes(s.buffer, d.offs[i], s.items[i].bytes())
		}
		err := l.o.Pool.Get(ctx, d.keys[lo:hi], d.vals[lo:hi], d.n[lo:hi])
		d.short[j] = false
		for i := lo; i < hi; i++ {
			d.ptrs[i] = l.stage.ptr(s.buffer, d.offs[i])
			if d.n[i] != s.items[i].bytes() {
				d.ptrs[i], d.short[j] = 0, true
			}
		}
		clear(d.vals[lo:hi])
		d.describe(s.items, lo, hi, cuda.HostToDevice, func(int) bool { return true })
		if s.descs != nil {
			d.describeSet(s.descs, s.items, j, lo, hi)
		}
		return err
	})
}

// finishLookups waits for a set's lookups and fails the requests of
// pages not found whole (device address 0), looking only at the calls
// flagged. A request that failed in an earlier set (its pages here were
// taken before that was known) lists no more missing pages.
func (c *loadCall) finishLookups(w *setWork) error {
	w.wait()
	c.calls += int64(w.calls)
	c.p.clk.lap(stats.PhaseGet)
	c.p.clk.addCPU(stats.PhaseGet, w.cpu)
	s, d := w.set, w.set.scratch
	if w.err != nil {
		return fmt.Errorf("pool get of %d pages: %w", len(s.items), w.err)
	}
	if c.l.parts() > 1 {
		d.foldParts(len(s.items), c.l.parts())
	}
	for j := 0; j*w.chunk < len(s.items); j++ {
		if !d.short[j] {
			continue
		}
		for i := j * w.chunk; i < min((j+1)*w.chunk, len(s.items)); i++ {
			if it := s.items[i]; d.ptrs[i] == 0 && !c.failedBefore(int(it.job), w.seq) {
				c.markMissing(it, w.seq)
			}
		}
	}
	return nil
}

// unstage queues the copies of set w's pages of requests still whole,
// described by its lookups' goroutines.
func (c *loadCall) unstage(w *setWork) error {
	s := w.set
	if s.descs != nil {
		return c.launchDescribed(s)
	}
	k := len(s.items)
	failed := func(it pageItem) bool { return c.failed[it.job] }
	copies := s.scratch.all(k)
	if c.anyFailed && slices.ContainsFunc(s.items, failed) {
		copies = s.scratch.kept(k, func(i int) bool { return !failed(s.items[i]) })
		s.items = slices.DeleteFunc(s.items, failed)
	}
	c.p.clk.lap(stats.PhaseDescribe)
	return c.p.submit(s, cuda.HostToDevice, copies, stats.PhaseUnstage)
}

// launchDescribed drops the descriptors of set s's pages of requests
// that failed, written by its lookups, and launches the rest.
func (c *loadCall) launchDescribed(s *slotSet) error {
	failed := func(it pageItem) bool { return c.failed[it.job] }
	if c.anyFailed && slices.ContainsFunc(s.items, failed) {
		d := s.scratch
		for i, it := range s.items {
			if !failed(it) {
				continue
			}
			if err := s.descs.Drop(d.descStart(i), d.dends[i]-d.descStart(i)); err != nil {
				return err
			}
		}
		s.items = slices.DeleteFunc(s.items, failed)
	}
	c.p.clk.lap(stats.PhaseDescribe)
	return c.p.launch(s, stats.PhaseUnstage)
}

// countLanded adds pages whose copies finished to their results.
func countLanded(results []LoadResult, items []pageItem) {
	for _, it := range items {
		results[it.job].Landed++
		results[it.job].Bytes += it.bytes()
	}
}

// markMissing lists it as missing in set seq and fails its request.
func (c *loadCall) markMissing(it pageItem, seq int) {
	c.results[it.job].Missing = append(c.results[it.job].Missing, it.key)
	if !c.failed[it.job] {
		c.failed[it.job], c.failedIn[it.job] = true, seq
	}
	c.anyFailed = true
}

// failedBefore says whether request job failed in a set before set seq.
func (c *loadCall) failedBefore(job, seq int) bool {
	return c.failed[job] && c.failedIn[job] < seq
}
