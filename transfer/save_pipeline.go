package transfer

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// saveCall is the state of one SaveAll.
type saveCall struct {
	s       *Saver
	p       *pipeline
	jobs    []SaveJob
	results []SaveResult
	items   []pageItem
	next    int
	calls   int64
}

// path is the save's way through the pipeline. Staged, the device
// gathers a set's pages into its staging buffer first, then the crew
// puts them (copying them into the pool) while the gathers of the next
// sets whose buffers are free are queued. Direct, the crew reserves the
// set's values in the pool's arenas first, the device gathers the pages
// into them, and the reservations are committed once the copies
// finished; the next set's reservations are under way while a set's
// copies are queued (path.oneAhead).
func (c *saveCall) path(ctx context.Context) path {
	if c.s.lane.arenas != nil {
		return path{
			start:    func() (*setWork, error) { return c.startReserve(ctx) },
			finish:   c.finishReserve,
			second:   c.gather,
			oneAhead: true,
		}
	}
	put, done := c.startPut, c.finishPut
	if c.s.lane.parts() > 1 {
		put, done = c.startPutParts, c.finishPutParts
	}
	return path{
		start:  func() (*setWork, error) { return c.stageNext(ctx) },
		finish: c.waitStaged,
		second: func(w *setWork) error { return put(ctx, w) },
		done:   done,
	}
}

// stageNext queues the gather of the next set of pages still absent
// (SkipExisting) into a free staging buffer, one page after the other;
// nil when no page is left.
func (c *saveCall) stageNext(ctx context.Context) (*setWork, error) {
	l := c.s.lane
	most := l.setPagesFor(len(c.items))
	for {
		batch := l.nextBatch(c.items, &c.next, nil, most)
		if len(batch) == 0 {
			return nil, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, err := c.dropExisting(ctx, batch)
		if err != nil {
			return nil, err
		}
		if len(batch) == 0 {
			continue
		}
		s, err := c.p.acquire()
		if err != nil {
			return nil, err
		}
		return &setWork{set: s}, c.gatherStaged(s, batch)
	}
}

// gatherStaged describes the gathers of batch into set s's staging buffer
// and queues them: in kernel mode as the set's descriptors, written in one
// pass (setScratch.describeStaged), else as its copies.
func (c *saveCall) gatherStaged(s *slotSet, batch []pageItem) error {
	l, d := c.s.lane, s.scratch
	base := l.stage.ptr(s.buffer, 0)
	if s.descs == nil {
		s.items = batch
		d.placeStaged(s.items, base, cuda.DeviceToHost)
		c.p.clk.lap(stats.PhaseDescribe)
		return c.p.submit(s, cuda.DeviceToHost, d.all(len(s.items)), stats.PhaseStage)
	}
	if err := s.takeItems(batch, cuda.DeviceToHost, 1); err != nil {
		return err
	}
	if err := d.describeStaged(s.descs, s.items, base); err != nil {
		return err
	}
	c.p.clk.lap(stats.PhaseDescribe)
	return c.p.launch(s, stats.PhaseStage)
}

// dropExisting, with SkipExisting, asks Exist for the keys of batch, one
// call per Slots pages, and returns the pages absent (or whose probe
// failed: the put decides for those); without, it returns batch.
func (c *saveCall) dropExisting(ctx context.Context, batch []pageItem) ([]pageItem, error) {
	l := c.s.lane
	if !l.o.SkipExisting {
		return batch, nil
	}
	defer c.p.clk.lap(stats.PhaseResolve)
	out := batch[:0]
	status := make([]int, l.geo.Slots)
	for lo := 0; lo < len(batch); lo += l.geo.Slots {
		chunk := batch[lo:min(lo+l.geo.Slots, len(batch))]
		keys := l.keys[:len(chunk)]
		for i, it := range chunk {
			keys[i] = it.key
		}
		c.calls++
		if err := l.o.Pool.Exist(ctx, keys, status[:len(chunk)]); err != nil {
			return nil, fmt.Errorf("pool exist of %d pages: %w", len(chunk), err)
		}
		for i, it := range chunk {
			if status[i] == 1 {
				c.results[it.job].Existing++
				continue
			}
			out = append(out, it)
		}
	}
	return out, nil
}

// waitStaged waits for the gather of set w (charged to sync).
func (c *saveCall) waitStaged(w *setWork) error { return c.p.wait(w.set) }

// startPut posts the puts of set w's gathered pages to the crew, in store
// calls of callPages pages.
func (c *saveCall) startPut(ctx context.Context, w *setWork) error {
	l, s := c.s.lane, w.set
	d, k := s.scratch, len(s.items)
	w.chunk = l.callPages(k)
	w.task = chunkCalls(l.crew, k, w.chunk, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			it := s.items[i]
			d.items[i] = pool.PutItem{Key: it.key, Value: l.stage.bytes(s.buffer, d.offs[i], it.bytes()), Options: c.jobs[it.job].Options}
		}
		err := l.o.Pool.Put(ctx, d.items[lo:hi], d.codes[lo:hi])
		clear(d.items[lo:hi])
		return err
	})
	return nil
}

// finishPut waits for set w's puts and counts their answers.
func (c *saveCall) finishPut(w *setWork) error {
	w.wait()
	c.calls += int64(w.calls)
	c.p.clk.lap(stats.PhasePut)
	c.p.clk.addCPU(stats.PhasePut, w.cpu)
	k := len(w.set.items)
	if w.err != nil {
		return fmt.Errorf("pool put of %d pages: %w", k, w.err)
	}
	c.count(w.set.items, w.set.scratch.codes[:k])
	return nil
}

// count adds a set's put answers to the jobs' results.
func (c *saveCall) count(batch []pageItem, codes []pool.Code) {
	for i, code := range codes {
		r := &c.results[batch[i].job]
		switch code {
		case pool.OK:
			r.Stored++
			r.Bytes += batch[i].bytes()
		case pool.ObjectAlreadyExists:
			r.AlreadyExists++
		default:
			r.Failed++
			r.FailedKeys = append(r.FailedKeys, batch[i].key)
		}
	}
}
