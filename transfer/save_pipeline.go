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

// run stages batch after batch: once batch k's gather finished, its puts
// start, and the gather of batch k+1 is queued (into another buffer)
// while they run. With a single buffer batch k+1 is staged only after
// batch k's puts returned.
func (c *saveCall) run(ctx context.Context) error {
	staged, err := c.stageNext(ctx)
	for staged != nil && err == nil {
		if err = c.p.wait(staged); err != nil {
			return err
		}
		overlap := c.p.peek() != staged
		task := c.startPut(ctx, staged, !overlap)
		var next *slotSet
		if overlap {
			next, err = c.stageNext(ctx)
		}
		if perr := c.finishPut(staged, task); err == nil {
			err = perr
		}
		if err == nil && !overlap {
			next, err = c.stageNext(ctx)
		}
		staged = next
	}
	return err
}

// stageNext queues the gather of the next batch of pages still absent
// (SkipExisting) into a free buffer; nil when no page is left.
func (c *saveCall) stageNext(ctx context.Context) (*slotSet, error) {
	l := c.s.lane
	none := make([]bool, len(c.jobs))
	for {
		batch := l.nextBatch(c.items, &c.next, none)
		if len(batch) == 0 {
			return nil, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if l.o.SkipExisting {
			var err error
			batch, err = c.dropExisting(ctx, batch)
			c.calls++
			c.p.clk.lap(stats.PhaseResolve)
			if err != nil {
				return nil, err
			}
			if len(batch) == 0 {
				continue
			}
		}
		set, err := c.p.acquire()
		if err != nil {
			return nil, err
		}
		l.describe(batch, cuda.DeviceToHost, l.slotPtr(set))
		c.p.clk.lap(stats.PhaseDescribe)
		set.items = append(set.items[:0], batch...)
		return set, c.p.submit(set, cuda.DeviceToHost, l.copies, stats.PhaseStage)
	}
}

// dropExisting asks Exist for the batch's keys and returns the pages
// absent (or whose probe failed: the put decides for those).
func (c *saveCall) dropExisting(ctx context.Context, batch []pageItem) ([]pageItem, error) {
	l := c.s.lane
	keys := l.keys[:len(batch)]
	for i, it := range batch {
		keys[i] = it.key
	}
	status := make([]int, len(batch))
	if err := l.o.Pool.Exist(ctx, keys, status); err != nil {
		return nil, fmt.Errorf("pool exist of %d pages: %w", len(batch), err)
	}
	out := batch[:0]
	for i, it := range batch {
		if status[i] == 1 {
			c.results[it.job].Existing++
			continue
		}
		out = append(out, it)
	}
	return out, nil
}

// startPut starts the puts of set's gathered pages (inline: the first
// call on this goroutine).
func (c *saveCall) startPut(ctx context.Context, set *slotSet, inline bool) *fanTask {
	l := c.s.lane
	batch := set.items
	items := l.puts[:len(batch)]
	for i, it := range batch {
		items[i] = pool.PutItem{Key: it.key, Value: l.stage.slot(set.buffer, i, it.bytes), Options: c.jobs[it.job].Options}
	}
	return l.fan.put(ctx, l.o.Pool, items, l.codes[:len(batch)], batchBytes(batch), inline)
}

// finishPut waits for set's puts and counts their answers.
func (c *saveCall) finishPut(set *slotSet, task *fanTask) error {
	l := c.s.lane
	calls, cpu, err := task.wait()
	c.calls += int64(calls)
	c.p.clk.lap(stats.PhasePut)
	c.p.clk.addCPU(stats.PhasePut, cpu)
	clear(l.puts[:len(set.items)])
	if err != nil {
		return fmt.Errorf("pool put of %d pages: %w", len(set.items), err)
	}
	c.count(set.items, l.codes[:len(set.items)])
	return nil
}

// count adds a batch's put answers to the jobs' results.
func (c *saveCall) count(batch []pageItem, codes []pool.Code) {
	for i, code := range codes {
		r := &c.results[batch[i].job]
		switch code {
		case pool.OK:
			r.Stored++
			r.Bytes += batch[i].bytes
		case pool.ObjectAlreadyExists:
			r.AlreadyExists++
		default:
			r.Failed++
			r.FailedKeys = append(r.FailedKeys, batch[i].key)
		}
	}
}
