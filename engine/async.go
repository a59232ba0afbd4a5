package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kvctl/kvctl/connector"
)

// parkedLoad is a request waiting outside the batch for its async load.
type parkedLoad struct {
	r *request
	// from and to are the blocks loaded; loads their transfers, fetched
	// from the pool when the load worker starts them.
	from, to int
	loads    []connector.Transfer
	// atNS is when it parked, startNS when its worker starts the transfer
	// and doneNS when it ends, in virtual time.
	atNS, startNS, doneNS int64
	// started reports whether the pages were fetched; landed whether
	// every page landed.
	started, landed bool
}

// asyncLoads are the async loads in flight: the parked requests, in the
// order they parked (the FIFO queue), and when each load worker is free.
type asyncLoads struct {
	parked []parkedLoad
	free   []int64 // per worker, virtual ns
}

// park starts the async load of admitted request r's honoured blocks
// (async_load). As TensorRT-LLM's mooncake_store worker.py
// start_async_load, the transfer is queued: the first free load worker
// starts it, in virtual time, taking its bytes at the worker's share of
// the bandwidth, and only then are the pages fetched from the pool, by
// every rank (fetch: at park when the worker is free, else from advanceTo
// as the clock passes the start). A page evicted while the request waits in
// the queue is missing then, and the request restarts. An empty transfer
// completes at once, not failed.
func (e *engine) park(ctx context.Context, r *request) error {
	loads, err := e.sched.TakeLoads(nil, &r.conn)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	now := int64(e.clock.Elapsed())
	from := r.computed / e.perBlock
	p := parkedLoad{r: r, from: from, to: from + len(loads), loads: loads, atNS: now,
		startNS: now, doneNS: now, started: len(loads) == 0, landed: len(loads) == 0}
	if len(loads) > 0 {
		p.startNS, p.doneNS = e.queueLoad(len(loads), now)
	}
	r.phase = phaseParked
	e.counts.parkedLoads++
	e.async.parked = append(e.async.parked, p)
	return e.startDueLoads(ctx, now)
}

// queueLoad gives a transfer of blocks blocks, queued at now, to the
// first free load worker and returns when that worker starts and ends it.
func (e *engine) queueLoad(blocks int, now int64) (startNS, doneNS int64) {
	a := &e.async
	if a.free == nil {
		a.free = make([]int64, e.cfg.Connector.AsyncLoadWorkers)
	}
	w := slices.Index(a.free, slices.Min(a.free))
	bytes := float64(int64(blocks)*e.pages.bytesPerBlock()) / float64(len(e.workers))
	share := e.cfg.Costs.TransferGBps * 1e6 / float64(len(a.free)) // bytes per ms
	startNS = max(now, a.free[w])
	a.free[w] = startNS + int64(math.Ceil(bytes/share*1e6))
	return startNS, a.free[w]
}

// startDueLoads fetches the pages of every queued transfer whose worker
// has started it by now (startNS at or before nowNS), in the order they
// parked, so FIFO per worker.
func (e *engine) startDueLoads(ctx context.Context, nowNS int64) error {
	for i := range e.async.parked {
		if p := &e.async.parked[i]; !p.started && p.startNS <= nowNS {
			if err := e.fetch(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetch moves parked load p's pages from the pool, on every rank.
func (e *engine) fetch(ctx context.Context, p *parkedLoad) error {
	p.landed = true
	for _, w := range e.workers {
		ok, err := w.LoadAsync(ctx, p.loads)
		if err != nil {
			return fmt.Errorf("engine: async load of request %q: %w", p.r.userID, err)
		}
		p.landed = p.landed && ok
	}
	p.started, p.loads = true, nil
	return nil
}

// getFinished settles the async loads done by now (get_finished): a request
// whose pages all landed has them verified and cached and rejoins the
// running requests; one whose page was missing restarts. Transfers due by
// now that have not been fetched yet (the clock jumped to wall time in
// live mode) are fetched first.
func (e *engine) getFinished(ctx context.Context) error {
	now := int64(e.clock.Elapsed())
	if err := e.startDueLoads(ctx, now); err != nil {
		return err
	}
	a := &e.async
	kept := a.parked[:0]
	for _, p := range a.parked {
		if p.doneNS > now {
			kept = append(kept, p)
			continue
		}
		e.counts.asyncWaitMS += float64(p.doneNS-p.atNS) / 1e6
		e.finishParked(p)
	}
	clear(a.parked[len(kept):])
	a.parked = kept
	return nil
}

func (e *engine) finishParked(p parkedLoad) {
	r := p.r
	if !p.landed {
		e.counts.restarts++
		e.counts.asyncLoadFailures++
		if p.startNS > p.atNS {
			e.counts.asyncQueuedLoadFailures++
		}
		e.rewind(r)
		return
	}
	for b := p.from; b < p.to; b++ {
		e.landBlock(r, b, r.alloc.blocks[b], r.conn.Chain.Hash(b))
	}
	r.cover(r.computed, r.computed+r.loadTokens, &r.poolHit)
	r.computed += r.loadTokens
	r.loadTokens = 0
	r.phase = phaseRunning
	e.running = append(e.running, r)
}

// advanceTo moves the owners' clock forward to targetNS, stopping
// at the start of each queued async load on the way: the pool's eviction
// step gets its turn (tickEviction, at most every EvictEvery), then the
// load's pages are fetched. A page whose lease expired while its request
// waited in the queue can be gone by then.
func advanceTo(ctx context.Context, owners []*engine, targetNS int64) error {
	clock := owners[0].clock
	for {
		e, p := nextQueuedLoad(owners, targetNS)
		if p == nil {
			break
		}
		clock.Advance(time.Duration(p.startNS - int64(clock.Elapsed())))
		owners[0].tickEviction()
		if err := e.fetch(ctx, p); err != nil {
			return err
		}
	}
	clock.Advance(time.Duration(targetNS - int64(clock.Elapsed())))
	return nil
}

// nextQueuedLoad returns the unstarted async load, of any owner, that
// starts first at or before targetNS (the first parked on a tie), and its
// owner; nil when there is none.
func nextQueuedLoad(owners []*engine, targetNS int64) (*engine, *parkedLoad) {
	var (
		owner *engine
		next  *parkedLoad
	)
	for _, e := range owners {
		for i := range e.async.parked {
			p := &e.async.parked[i]
			if !p.started && p.startNS <= targetNS && (next == nil || p.startNS < next.startNS) {
				owner, next = e, p
			}
		}
	}
	return owner, next
}

// skipToNextEvent moves the clock to the end of the next async load of
// any owner, or to the next arrival when that comes first, fetching the
// loads that start on the way.
func skipToNextEvent(ctx context.Context, owners []*engine) error {
	next := int64(math.MaxInt64)
	for _, e := range owners {
		for _, p := range e.async.parked {
			next = min(next, p.doneNS)
		}
	}
	e := owners[0]
	if !math.IsInf(e.nextArrivalMS, 1) {
		next = min(next, int64(math.Ceil(e.nextArrivalMS*1e6)))
	}
	return advanceTo(ctx, owners, next)
}
