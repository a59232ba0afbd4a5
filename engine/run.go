package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/workload"
)

// progressEvery is the least wall time between two progress calls.
const progressEvery = 200 * time.Millisecond

// Run replays the requests of src through the engine and the connector
// against cfg.Pool and reports the outcome. Requests enter the waiting
// queue when the virtual clock reaches their arrival time; the clock
// advances by each iteration's modelled cost and jumps over idle gaps, so
// the replay runs as fast as the CPU allows. src is read as the replay
// goes, on a goroutine of its own, a few dozen requests ahead of the
// engine; each request's tokens are hashed into its chain as it is read
// and not kept, so the source may hand every request the same token
// buffer (workload.FileSource.ReuseTokens), and Each is called on that
// goroutine, which Run waits for before it returns. progress, when not
// nil, is called about every 200 ms of wall time and once at the end.
//
// A request that can never fit in the KV cache, or has an empty prompt,
// fails (Report.Failed, Report.FailedRequests) and the replay goes on. An
// error is returned for what stops the replay: a bad Config, the source,
// the pool, a broken invariant, or ctx (with the report so far, marked
// Report.Interrupted).
func Run(ctx context.Context, cfg Config, src workload.Source, progress func(Progress)) (Report, error) {
	if cfg.Disagg.On() {
		return runDisagg(ctx, cfg, src, progress)
	}
	start := time.Now()
	c, err := newCluster(cfg)
	if err != nil {
		return Report{}, err
	}
	if cfg.MemoryLimit > 0 {
		defer HoldMemory(memoryLimit(cfg.MemoryLimit, keptBytes(ctx, cfg.Pool, c)))()
	}
	in := newArrivals(src, cfg.Concurrency, c.owners[0].cfg.Keys)
	for _, e := range c.owners {
		// each request owns its chain and block lists here: recycle them
		e.chains, e.allocs = in.chains, new(allocRoom)
	}
	err = c.loop(ctx, in, progress)
	in.stop()
	if err == nil {
		err = in.err()
	}
	first := c.owners[0]
	first.stats.Flush()
	rep := c.report(ctx, time.Since(start))
	rep.Interrupted = errors.Is(err, context.Canceled)
	if cfg.RemovePages {
		var rerr error
		rep.PoolKeysRemoved, rerr = c.removeWritten(ctx)
		err = errors.Join(err, rerr)
	}
	if progress != nil {
		progress(first.progress())
	}
	if cerr := c.close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	return rep, err
}

// loop runs iterations until every request is done.
func (c *cluster) loop(ctx context.Context, in *arrivals, progress func(Progress)) error {
	lastProgress := time.Now()
	first := c.owners[0]
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.admitArrivals(ctx, in); err != nil {
			return err
		}
		if c.idle() {
			if _, ok := in.peek(); !ok {
				return nil
			}
			if in.clients > 0 {
				return errors.New("engine: closed loop idle with requests left and no client busy")
			}
			first.clock.AdvanceTo(in.nextAt())
			continue
		}
		if err := stepOwners(ctx, c.owners); err != nil {
			return err
		}
		for _, e := range c.owners {
			if err := e.failStuck(); err != nil {
				return err
			}
		}
		if progress != nil && first.counts.iterations%256 == 0 && time.Since(lastProgress) >= progressEvery {
			lastProgress = time.Now()
			progress(first.progress())
		}
	}
}

// admitArrivals routes the requests due by now (arrivals.due) to the
// waiting queue of an owner.
func (c *cluster) admitArrivals(ctx context.Context, in *arrivals) error {
	first := c.owners[0]
	now := first.clock.ElapsedMS()
	for {
		w, at, ok := in.due(now, first.counts.inFlight())
		if !ok {
			first.nextArrivalMS = in.nextAt()
			return nil
		}
		if _, _, err := c.arriveHashed(ctx, w, at); err != nil {
			return err
		}
	}
}

// arrive registers request w, arrived at atMS (modelled), with the owner
// the router picks, and returns them; a request that can never be served
// fails at once (the request returned is nil).
func (c *cluster) arrive(ctx context.Context, w workload.Request, atMS float64) (*engine, *request, error) {
	return c.arriveHashed(ctx, hashArrival(c.owners[0].cfg.Keys, w), atMS)
}

// arriveHashed is arrive of a request whose prompt is hashed.
func (c *cluster) arriveHashed(ctx context.Context, a arrival, atMS float64) (*engine, *request, error) {
	r := c.owners[0].newArrival(a, atMS)
	if r == nil {
		return nil, nil, nil
	}
	e, err := c.route(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	e.waiting.pushBack(r)
	return e, r, nil
}

// newArrival counts request a, arrived at atMS, and returns its engine
// state; one that can never be served fails at once (nil). The owners
// share the counters and the key recipe, so any owner makes it.
func (e *engine) newArrival(a arrival, atMS float64) *request {
	w := a.w
	seq := int(e.counts.requests)
	e.counts.requests++
	e.counts.promptTokens += int64(a.promptLen)
	if e.counts.requests == 1 {
		e.counts.firstArrivalMS = atMS
	}
	need := ceilDiv(a.promptLen+max(1, w.OutputLength), e.perBlock)
	switch {
	case a.promptLen == 0:
		e.fail(w.ID, errors.New("empty prompt"))
		return nil
	case e.cfg.Draft.Kind != connector.DraftNone && w.OutputLength > 1:
		e.counts.notContextOnly++
		e.fail(w.ID, fmt.Errorf("speculative prefill (draft %s) serves context-only requests: output length %d, want at most 1",
			e.cfg.Draft.Kind, w.OutputLength))
		return nil
	case need > e.pages.blocks:
		e.fail(w.ID, fmt.Errorf("needs %d KV blocks for %d prompt and %d output tokens, more than the %d of the GPU (raise --gpu-blocks)",
			need, a.promptLen, w.OutputLength, e.pages.blocks))
		return nil
	case a.err != nil:
		e.fail(w.ID, a.err)
		return nil
	}
	return newRequest(seq, a, atMS)
}

func (e *engine) fail(id string, err error) {
	e.counts.failed++
	if len(e.failed) < MaxFailedReported {
		e.failed = append(e.failed, FailedRequest{ID: id, Error: err.Error()})
	}
}

// failStuck catches a replay that cannot progress: nothing running or
// finishing, yet the head of the queue was not admitted.
func (e *engine) failStuck() error {
	if len(e.batch) > 0 || len(e.running) > 0 || len(e.finishing) > 0 || len(e.async.parked) > 0 || e.waiting.len() == 0 {
		return nil
	}
	r := e.waiting.peek()
	return fmt.Errorf("engine: request %q cannot be admitted with every KV block free (%d blocks, %d in use by the cache)",
		r.userID, e.pages.blocks, e.pages.blocks-len(e.kv.free))
}
