package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/kvctl/kvctl/workload"
)

// disagg is a disaggregated run (Config.Disagg): a front that sends each
// request to a context server, then its KV to a generation server. Each
// role is a cluster of owners (one per server) that run their passes in
// lock step; the two roles run theirs independently on the shared clock,
// so a context server's long prefill does not delay a decode step.
type disagg struct {
	cfg      DisaggConfig
	clock    *Clock
	ctx, gen *roleGroup
	// legs maps a context request to its request's state between roles.
	legs map[*request]*leg
	// queued are the legs waiting for a receive, per generation server
	// (FIFO); moving the receives under way; links each generation
	// server's receive link.
	queued [][]*leg
	moving []*leg
	links  []kvLink
	// genLegs counts each generation server's legs queued or receiving.
	genLegs []int64
	rng     *rand.Rand
	out     disaggOutcome
	failed  []FailedRequest
	xfer    transferSamples
}

// roleGroup is the servers of one role and the pass they run.
type roleGroup struct {
	c       *cluster
	running bool
	endNS   int64 // end of the pass under way
}

func newDisagg(cfg Config) (*disagg, error) {
	cfg, err := cfg.forRun()
	if err != nil {
		return nil, err
	}
	d := &disagg{cfg: cfg.Disagg, clock: cfg.Clock, legs: map[*request]*leg{},
		queued: make([][]*leg, cfg.Disagg.Generation), links: make([]kvLink, cfg.Disagg.Generation),
		genLegs: make([]int64, cfg.Disagg.Generation),
		rng:     rand.New(rand.NewPCG(cfg.Faults.Seed, 0x6b76747866657273))}
	ctxC, err := newCluster(cfg.roleConfig(cfg.Disagg.Context, false))
	if err != nil {
		return nil, err
	}
	genC, err := newCluster(cfg.roleConfig(cfg.Disagg.Generation, true))
	if err != nil {
		return nil, errors.Join(err, ctxC.close())
	}
	d.ctx, d.gen = &roleGroup{c: ctxC}, &roleGroup{c: genC}
	for _, e := range ctxC.owners {
		e.onFinish = func(r *request) { d.holdForTransfer(e, r) }
	}
	for _, e := range genC.owners {
		e.onFinish = d.completeLeg
		e.evict = nil // the context servers run the pool's eviction step
	}
	return d, nil
}

// runDisagg is Run for a disaggregated Config.
func runDisagg(ctx context.Context, cfg Config, src workload.Source, progress func(Progress)) (Report, error) {
	start := time.Now()
	d, err := newDisagg(cfg)
	if err != nil {
		return Report{}, err
	}
	if cfg.MemoryLimit > 0 {
		defer HoldMemory(memoryLimit(cfg.MemoryLimit, keptBytes(ctx, cfg.Pool, d.ctx.c, d.gen.c)))()
	}
	in := newArrivals(src, cfg.Concurrency, d.ctx.c.owners[0].cfg.Keys)
	err = d.loop(ctx, in, progress)
	in.stop()
	if err == nil {
		err = in.err()
	}
	d.ctx.c.owners[0].stats.Flush()
	d.gen.c.owners[0].stats.Flush()
	rep := d.report(ctx, time.Since(start))
	rep.Interrupted = errors.Is(err, context.Canceled)
	if progress != nil {
		progress(d.progress())
	}
	return rep, errors.Join(err, d.ctx.c.close(), d.gen.c.close())
}

// loop runs until every request ended: passes that end now emit their
// tokens, the front settles context-side failures, an idle generation
// server runs the top of its loop (receives timed out, landed, started),
// arrivals are routed, idle roles start a pass, and the clock moves to the
// next event.
func (d *disagg) loop(ctx context.Context, in *arrivals, progress func(Progress)) error {
	lastProgress := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := int64(d.clock.Elapsed())
		d.endPasses(ctx, now)
		if !d.gen.running {
			if err := d.generationTop(now); err != nil {
				return err
			}
		}
		d.dispatchLinks(now)
		if err := d.admitArrivals(ctx, in, now); err != nil {
			return err
		}
		if err := d.startPasses(ctx, now); err != nil {
			return err
		}
		next := d.nextEvent(in, now)
		if next == math.MaxInt64 {
			return d.finished(in)
		}
		d.clock.Advance(time.Duration(next - now))
		d.ctx.c.owners[0].tickEviction()
		if progress != nil && time.Since(lastProgress) >= progressEvery {
			lastProgress = time.Now()
			progress(d.progress())
		}
	}
}

// endPasses emits the tokens of each role whose pass ended by now.
func (d *disagg) endPasses(ctx context.Context, now int64) {
	for _, g := range []*roleGroup{d.ctx, d.gen} {
		if g.running && g.endNS <= now {
			g.running = false
			emitOwners(ctx, g.c.owners)
		}
	}
}

// startPasses starts a pass of each idle role with work.
func (d *disagg) startPasses(ctx context.Context, now int64) error {
	for _, g := range []*roleGroup{d.ctx, d.gen} {
		if g.running {
			continue
		}
		busy, _, err := prepareOwners(ctx, g.c.owners)
		if err != nil {
			return err
		}
		if !busy {
			continue
		}
		cost, err := passOwners(ctx, g.c.owners)
		if err != nil {
			return err
		}
		g.running, g.endNS = true, now+max(1, int64(cost*1e6))
	}
	return nil
}

// admitArrivals routes the requests due by now to a context server, as
// context-only requests (one output token); the front keeps the rest of
// each request for its generation leg.
func (d *disagg) admitArrivals(ctx context.Context, in *arrivals, now int64) error {
	for {
		w, at, ok := in.due(float64(now)/1e6, d.out.inFlight())
		if !ok {
			return nil
		}
		if _, err := d.contextOnly(ctx, w, at); err != nil {
			return err
		}
	}
}

// contextOnly is the context-only entry: request w, arrived at atMS,
// goes to a context server as a context-only request (one output token),
// and the returned leg is its transfer handle; holdForTransfer fills in
// its first token when the context server produced it. A request the
// context server refuses fails at once (nil leg).
func (d *disagg) contextOnly(ctx context.Context, a arrival, atMS float64) (*leg, error) {
	d.out.arrived++
	w := a.w
	out := w.OutputLength
	a.w.OutputLength = 1
	e, r, err := d.ctx.c.arriveHashed(ctx, a, atMS)
	if err != nil || r == nil {
		if r == nil && err == nil {
			d.out.contextFailures++ // the context server refused it (Report.FailedRequests says why)
		}
		return nil, err
	}
	l := &leg{id: w.ID, ctxOwner: e, ctxReq: r, outputLen: max(1, out), gen: -1}
	d.legs[r] = l
	return l, nil
}

// nextEvent is the time (ns) of the next thing to happen after now: a
// pass's end, an arrival, a receive landing, timing out or failing;
// MaxInt64 when none.
func (d *disagg) nextEvent(in *arrivals, now int64) int64 {
	next := int64(math.MaxInt64)
	after := func(t int64) {
		if t > now {
			next = min(next, t)
		}
	}
	for _, g := range []*roleGroup{d.ctx, d.gen} {
		if g.running {
			after(g.endNS)
		}
	}
	if at := in.nextAt(); !math.IsInf(at, 1) {
		after(int64(math.Ceil(at * 1e6)))
	}
	for _, l := range d.moving {
		after(l.doneNS)
		after(l.startNS + int64(d.cfg.TransferTimeout))
	}
	for i := range d.links {
		if t, ok := d.links[i].next(); ok {
			after(t)
		}
	}
	return next
}

// finished is the end of the loop with nothing left to wait for: an
// error when requests are still in flight (none may be lost).
func (d *disagg) finished(in *arrivals) error {
	if _, ok := in.peek(); !ok && d.out.inFlight() == 0 {
		return nil
	}
	return fmt.Errorf("engine: disaggregated run stuck with %d requests in flight and nothing to wait for", d.out.inFlight())
}
