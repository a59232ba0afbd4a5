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
	// from and to are the blocks loaded.
	from, to int
	// atMS is when it parked and doneNS when its load ends, in virtual
	// time; landed reports whether every page landed.
	atMS   float64
	doneNS int64
	landed bool
}

// asyncLoads are the async loads in flight: the parked requests, in the
// order they parked (the FIFO queue), and when each load worker is free.
type asyncLoads struct {
	parked []parkedLoad
	free   []float64 // per worker, virtual ms
	buf    []connector.Transfer
}

// park starts the async load of admitted request r's honoured blocks
// (async_load): the pages are moved now, by every rank, and the load
// completes in virtual time on the first free load worker, taking its
// bytes at the worker's share of the bandwidth.
func (e *engine) park(ctx context.Context, r *request) error {
	loads, err := e.sched.TakeLoads(e.async.buf[:0], &r.conn)
	e.async.buf = loads
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	landed := true
	for _, w := range e.workers {
		ok, err := w.LoadAsync(ctx, loads)
		if err != nil {
			return fmt.Errorf("engine: async load of request %q: %w", r.userID, err)
		}
		landed = landed && ok
	}
	a := &e.async
	if a.free == nil {
		a.free = make([]float64, e.cfg.Connector.AsyncLoadWorkers)
	}
	w := slices.Index(a.free, slices.Min(a.free))
	bytes := float64(int64(len(loads))*e.pages.bytesPerBlock()) / float64(len(e.workers))
	share := e.cfg.Costs.TransferGBps * 1e6 / float64(len(a.free)) // bytes per ms
	start := max(e.clock.ElapsedMS(), a.free[w])
	a.free[w] = start + bytes/share
	from := r.computed / e.perBlock
	a.parked = append(a.parked, parkedLoad{r: r, from: from, to: from + len(loads),
		atMS: e.clock.ElapsedMS(), doneNS: int64(math.Ceil(a.free[w] * 1e6)), landed: landed})
	r.phase = phaseParked
	e.counts.parkedLoads++
	return nil
}

// getFinished settles the async loads done by now (get_finished): a request
// whose pages all landed has them verified and cached and rejoins the
// running requests; one whose page was missing restarts.
func (e *engine) getFinished() {
	now := int64(e.clock.Elapsed())
	a := &e.async
	kept := a.parked[:0]
	for _, p := range a.parked {
		if p.doneNS > now {
			kept = append(kept, p)
			continue
		}
		e.counts.asyncWaitMS += float64(p.doneNS)/1e6 - p.atMS
		e.finishParked(p)
	}
	clear(a.parked[len(kept):])
	a.parked = kept
}

func (e *engine) finishParked(p parkedLoad) {
	r := p.r
	if !p.landed {
		e.counts.restarts++
		e.counts.asyncLoadFailures++
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

// skipToNextEvent moves the clock to the end of the next async load of
// any owner, or to the next arrival when that comes first.
func skipToNextEvent(owners []*engine) {
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
	e.clock.Advance(time.Duration(next - int64(e.clock.Elapsed())))
}
