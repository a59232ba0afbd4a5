package engine

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/keys"
)

// iteration runs one pass of this engine alone (stepOwners).
func (e *engine) iteration(ctx context.Context) error { return stepOwners(ctx, []*engine{e}) }

// stepOwners runs one pass of every owner in lock step (the owners of
// attention DP run each forward together): each confirms the last pass's
// saves, settles finished async loads and schedules; then each builds the
// connector metadata, loads (restarting requests whose pages went
// missing), computes and saves; the clock advances by the slowest owner's
// modelled time (fetching the queued async loads that start meanwhile,
// each at its start), and every owner emits its tokens.
//
// With async loads, a pass that would be empty everywhere while loads are
// in flight is skipped: the clock jumps to the next load's end or arrival.
func stepOwners(ctx context.Context, owners []*engine) error {
	busy, parked, err := prepareOwners(ctx, owners)
	if err != nil {
		return err
	}
	if !busy && parked {
		return skipToNextEvent(ctx, owners)
	}
	cost, err := passOwners(ctx, owners)
	if err != nil {
		return err
	}
	first := owners[0]
	if err := advanceTo(ctx, owners, int64((first.clock.ElapsedMS()+cost)*1e6)); err != nil {
		return err
	}
	emitOwners(ctx, owners)
	return nil
}

// prepareOwners prepares the next pass of every owner (prepare) and
// reports whether any has a batch or finished requests to run a pass for,
// and whether any has a request parked for an async load.
func prepareOwners(ctx context.Context, owners []*engine) (busy, parked bool, err error) {
	for _, e := range owners {
		if err := e.prepare(ctx); err != nil {
			return false, false, err
		}
		busy = busy || len(e.batch) > 0 || len(e.finishing) > 0
		parked = parked || len(e.async.parked) > 0
	}
	return busy, parked, nil
}

// passOwners runs the prepared pass of every owner and returns its
// modelled time in milliseconds: the slowest owner's.
func passOwners(ctx context.Context, owners []*engine) (float64, error) {
	first := owners[0]
	first.counts.iterations++
	var cost float64
	prefill := first.balance.start(len(owners))
	for i, e := range owners {
		c, n, err := e.pass(ctx)
		if err != nil {
			return 0, err
		}
		cost, prefill[i] = max(cost, c), n
	}
	first.balance.add(prefill)
	return cost, nil
}

// emitOwners ends a pass once the clock reached its end: every owner
// emits its tokens, then the statistics and the eviction step tick.
func emitOwners(ctx context.Context, owners []*engine) {
	for _, e := range owners {
		e.emit()
	}
	first := owners[0]
	first.stats.Tick()
	first.sampleTimeline(ctx, false)
	first.tickEviction()
}

// prepare confirms the last pass's saves, settles the async loads done by
// now and schedules the next pass.
func (e *engine) prepare(ctx context.Context) error {
	e.sched.ConfirmSaves(e.worker.TakeSubmittedSaves())
	for _, w := range e.workers[1:] {
		w.TakeSubmittedSaves() // the ranks save the same blocks in the same pass
	}
	e.releaseFinishing()
	if err := e.getFinished(ctx); err != nil {
		return err
	}
	return e.schedule(ctx)
}

// pass builds the connector metadata, loads, computes and saves, and
// returns the pass's modelled time in milliseconds and its prefill tokens.
func (e *engine) pass(ctx context.Context) (float64, int, error) {
	e.views = e.views[:0]
	for _, r := range e.batch {
		e.views = append(e.views, connector.Scheduled{Req: &r.conn, Computed: r.computed, NumScheduled: r.scheduled})
	}
	meta, err := e.sched.BuildMeta(e.views)
	if err != nil {
		return 0, 0, fmt.Errorf("engine: %w", err)
	}
	for _, w := range e.workers {
		if err := w.StartLoadKV(ctx, meta); err != nil {
			return 0, 0, fmt.Errorf("engine: pass %d: %w", meta.Pass, err)
		}
	}
	e.restartFailed(e.worker.TakeFailedLoadRequests())
	e.land(meta)
	prefill, decode := e.forward()
	for _, w := range e.workers {
		if err := w.WaitForSave(ctx, meta); err != nil {
			return 0, 0, fmt.Errorf("engine: pass %d: %w", meta.Pass, err)
		}
	}
	// the ranks move their shards in parallel, each on its own link
	moved := int64(len(meta.Loads)+len(meta.Saves)) * e.pages.bytesPerBlock() / int64(len(e.workers))
	return e.cost(prefill, decode, moved), prefill, nil
}

// cost is the modelled time of a pass, in milliseconds.
func (e *engine) cost(prefill, decode int, movedBytes int64) float64 {
	c := e.cfg.Costs
	return c.IterationMS + float64(prefill)*c.PrefillTokenMS + float64(decode)*c.DecodeTokenMS +
		float64(movedBytes)/(c.TransferGBps*1e6)
}

// restartFailed restarts the requests whose loads failed: their
// allocation is freed and rewound and they are readmitted; the connector
// is asked afresh then.
func (e *engine) restartFailed(ids []string) {
	for _, id := range ids {
		for _, r := range e.batch {
			if r.conn.ID == id && r.phase == phaseRunning {
				e.counts.restarts++
				e.rewind(r)
			}
		}
	}
}

// land settles the loads of requests still running: their pages now hold
// the pool's copy of each block, which is checked against the model when
// verification is on, and the blocks join the radix tree.
func (e *engine) land(meta *connector.Meta) {
	var r *request
	for _, tr := range meta.Loads {
		if r == nil || r.conn.ID != tr.ReqID {
			r = e.batchRequest(tr.ReqID)
		}
		if r == nil || r.phase != phaseRunning {
			continue
		}
		e.landBlock(r, tr.Block, tr.Page, tr.Hash)
	}
	for _, r := range e.batch {
		if r.phase == phaseRunning && r.loadTokens > 0 {
			r.cover(r.computed, r.computed+r.loadTokens, &r.poolHit)
			r.computed += r.loadTokens
			r.loadTokens = 0
		}
	}
}

// landBlock settles one loaded block of r: its pages are checked against
// the model when verification is on, and it joins the radix tree.
func (e *engine) landBlock(r *request, block int, page int32, h keys.Hash) {
	if e.cfg.Verify {
		e.counts.mismatches += int64(e.pages.verify(e.model, page, h))
	}
	e.pages.landed(page, h)
	e.kv.register(&r.alloc, block, h)
	r.written = max(r.written, block+1)
}

func (e *engine) batchRequest(id string) *request {
	for _, r := range e.batch {
		if r.conn.ID == id {
			return r
		}
	}
	return nil
}

// forward "computes" the scheduled tokens of every request still running:
// the pages of each block the pass completes are written with the model's
// KV. It returns the prefill tokens and decoding requests of the pass.
func (e *engine) forward() (prefill, decode int) {
	for _, r := range e.batch {
		if r.phase != phaseRunning {
			continue
		}
		n := r.scheduled
		if n == 1 && r.generated > 0 && r.computed == r.contextLen()-1 {
			decode++
		} else {
			prefill += n
		}
		if p := min(r.computed+n, r.promptLen) - r.computed; p > 0 {
			e.counts.computedPromptTokens += int64(p)
		}
		r.cover(r.computed, r.computed+n, &r.selfBuilt)
		r.computed += n
		e.writeBlocks(r)
	}
	return prefill, decode
}

// writeBlocks writes the pages of every block whose KV is computed and
// whose hash is known (with a lookahead the hash waits for later tokens)
// and caches it for reuse.
func (e *engine) writeBlocks(r *request) {
	limit := min(r.computed/e.perBlock, r.conn.Chain.NumBlocks(), len(r.alloc.blocks))
	for b := r.written; b < limit; b++ {
		h := r.conn.Chain.Hash(b)
		e.pages.fill(e.model, r.alloc.blocks[b], h)
		e.kv.register(&r.alloc, b, h)
	}
	r.written = max(r.written, limit)
}
