package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/kvctl/kvctl/connector"
)

// leg is one request of a disaggregated run between its two roles: the
// context request, then its generation request on server gen.
type leg struct {
	id        string
	ctxOwner  *engine
	ctxReq    *request
	outputLen int
	// firstToken is the token the context server generated.
	firstToken int64
	gen        int // the generation server, -1 before the hand-off
	genReq     *request
	bytes      int64
	// startNS is when the receive started (its pages allocated), doneNS
	// when its KV lands (MaxInt64 until it has the link); sendFail says
	// the sending side fails as the transfer starts, recvErr that the
	// receive fails at doneNS.
	startNS, doneNS   int64
	sendFail, recvErr bool
	// reservationWait says its receive waited for the completion
	// reservation (counted once in Report.ReservationWaits).
	reservationWait bool
}

// errTransfer is the state a failed KV transfer leaves a request in, as
// TensorRT-LLM's LlmRequestState names it.
var errTransfer = errors.New("DISAGG_TRANS_ERROR")

// holdForTransfer is the end of context-only request r on context server
// e: its first token is out (leg.firstToken) and its pages are held until
// its KV is transferred or the transfer is given up; the in-process front
// then hands the leg to generationOnly. A request of one output token is
// complete here.
func (d *disagg) holdForTransfer(e *engine, r *request) {
	l := d.legs[r]
	if l == nil {
		return
	}
	delete(d.legs, r)
	l.firstToken = NextToken(r.decodeSeed, r.promptLen)
	if l.outputLen <= 1 {
		d.out.completed++
		d.out.ttft = append(d.out.ttft, e.clock.ElapsedMS()-r.arrivalMS)
		return
	}
	r.held = true
	d.generationOnly(l)
}

// generationOnly is the generation-only entry: leg l (the handle of a
// context-only request whose first token is out) is queued on a
// generation server, which receives its KV when its pages allow
// (generationTop) and decodes the rest of its output.
func (d *disagg) generationOnly(l *leg) {
	r := l.ctxReq
	ge := d.gen.c.owners[0]
	if need := ceilDiv(r.promptLen+l.outputLen, ge.perBlock); need > ge.pages.blocks {
		d.fail(l, &d.out.generationFailures, fmt.Errorf("generation leg needs %d KV blocks, more than the %d of a generation server", need, ge.pages.blocks))
		d.releaseContext(l)
		return
	}
	l.genReq = &request{userID: r.userID, arrivalMS: r.arrivalMS, promptLen: r.promptLen, outputLen: l.outputLen,
		generated: r.generated, decodeSeed: r.decodeSeed, hasFirstTok: true,
		conn: connector.Request{ID: r.conn.ID, Chain: r.conn.Chain}}
	l.gen = d.pickGeneration()
	d.genLegs[l.gen]++
	d.queued[l.gen] = append(d.queued[l.gen], l)
}

// pickGeneration places a generation leg on the server with the fewest
// requests in flight and legs queued or receiving; ties go round robin.
func (d *disagg) pickGeneration() int {
	c := d.gen.c
	best, least := -1, int64(0)
	for k := range c.owners {
		i := (c.last + 1 + k) % len(c.owners)
		if n := c.owners[i].inFlight() + d.genLegs[i]; best < 0 || n < least {
			best, least = i, n
		}
	}
	c.last = best
	c.placed[best]++
	return best
}

// generationTop is the top of an idle generation server's loop: receives
// that landed join the running requests, failed or timed-out ones are
// cancelled (kv_transfer_timeout_ms), even when no forward step runs; then
// queued legs start their receive while pages allow.
func (d *disagg) generationTop(now int64) error {
	timeout := int64(d.cfg.TransferTimeout)
	kept := d.moving[:0]
	for _, l := range d.moving {
		done := l.doneNS <= now && l.doneNS-l.startNS <= timeout
		switch {
		case done && !l.recvErr:
			if err := d.land(l, now); err != nil {
				return err
			}
		case done:
			d.cancelReceive(l, now)
			d.fail(l, &d.out.transferErrors, fmt.Errorf("kv transfer failed on the generation server: %w", errTransfer))
		case now-l.startNS >= timeout:
			d.cancelReceive(l, now)
			d.fail(l, &d.out.timeouts, fmt.Errorf("kv transfer timed out after %v (kv_transfer_timeout_ms): %w", d.cfg.TransferTimeout, errTransfer))
		default:
			kept = append(kept, l)
		}
	}
	clear(d.moving[len(kept):])
	d.moving = kept
	for i := range d.queued {
		d.startReceives(i, now)
	}
	return nil
}

// dispatchLinks puts queued transfers on the links free by now. A
// transfer whose context server fails sending fails its request as a
// context failure and cancels the paired generation leg at once: the
// receive's pages are freed then, not at its timeout.
func (d *disagg) dispatchLinks(now int64) {
	sendFailed := func(l *leg) {
		d.moving = slices.DeleteFunc(d.moving, func(x *leg) bool { return x == l })
		d.cancelReceive(l, now)
		d.fail(l, &d.out.contextFailures, fmt.Errorf("the context server failed sending the kv; generation leg cancelled: %w", errTransfer))
	}
	for i := range d.links {
		d.links[i].dispatch(now, d.cfg.TransferGBps, int64(d.cfg.Delay), sendFailed)
	}
}

// startReceives starts the receives of generation server i's queued legs,
// in order, while its pages (and completion reservation) take them; each
// waits its turn on the server's link.
func (d *disagg) startReceives(i int, now int64) {
	ge := d.gen.c.owners[i]
	for len(d.queued[i]) > 0 {
		l := d.queued[i][0]
		g := l.genReq
		blocks := ceilDiv(g.promptLen, ge.perBlock)
		if !ge.boundFits(g) {
			if !l.reservationWait { // a wait is counted once per leg, not per loop
				l.reservationWait = true
				ge.counts.reservationWaits++
			}
			return
		}
		if blocks > ge.kv.available() {
			return
		}
		d.queued[i] = d.queued[i][1:]
		n := g.completionBound(ge.perBlock)
		g.alloc.blocks, g.alloc.nodes = make([]int32, 0, n), make([]*radixNode, 0, n)
		ge.kv.grow(&g.alloc, blocks)
		g.conn.Blocks = g.alloc.blocks
		ge.book(g)
		d.startTransfer(l, now, int64(blocks)*ge.pages.bytesPerBlock())
	}
}

// startTransfer starts leg l's receive of bytes now: it queues for its
// server's link (dispatchLinks); a fault draw may fail it on either side.
func (d *disagg) startTransfer(l *leg, now, bytes int64) {
	l.bytes, l.startNS, l.doneNS = bytes, now, math.MaxInt64
	if d.cfg.ErrorRate > 0 && d.rng.Float64() < d.cfg.ErrorRate {
		l.sendFail = d.rng.Float64() < 0.5
		l.recvErr = !l.sendFail
	}
	d.moving = append(d.moving, l)
	d.links[l.gen].queue = append(d.links[l.gen].queue, l)
}

// land settles leg l's transfer at now: the context server's pages of
// every full prompt block are copied into the generation server's and
// verified against the model like a load from the pool; the request
// joins the running ones with its first token, which reaches the client
// now.
func (d *disagg) land(l *leg, now int64) error {
	ge, g, c := d.gen.c.owners[l.gen], l.genReq, l.ctxReq
	full := min(g.promptLen/ge.perBlock, g.conn.Chain.NumBlocks(), len(c.alloc.blocks))
	for b := range full {
		copyPages(ge.pages, g.alloc.blocks[b], l.ctxOwner.pages, c.alloc.blocks[b])
		ge.landBlock(g, b, g.alloc.blocks[b], g.conn.Chain.Hash(b))
	}
	g.conn.NumTokens = g.contextLen()
	if err := ge.sched.UpdateStateAfterAlloc(&g.conn, 0, 0, 0); err != nil {
		return fmt.Errorf("engine: generation leg of request %q: %w", l.id, err)
	}
	g.computed, g.phase, g.lastTokMS = g.promptLen, phaseRunning, float64(now)/1e6
	ge.running = append(ge.running, g)
	d.genLegs[l.gen]--
	d.releaseContext(l)
	d.xfer.add(l.bytes, float64(l.doneNS-l.startNS)/1e6)
	d.out.ttft = append(d.out.ttft, g.lastTokMS-g.arrivalMS)
	return nil
}

// copyPages copies every page of block src of from into block dst of to
// (the same layout).
func copyPages(to *pageMemory, dst int32, from *pageMemory, src int32) {
	for i := range to.slots {
		copy(to.Page(i, dst), from.Page(i, src))
	}
}

// cancelReceive frees leg l's place on its link, the pages of its receive
// and the context server's hold, at now.
func (d *disagg) cancelReceive(l *leg, now int64) {
	d.links[l.gen].cancel(l, now)
	ge := d.gen.c.owners[l.gen]
	ge.unbook(l.genReq)
	ge.kv.release(&l.genReq.alloc)
	l.genReq.conn.Blocks = nil
	d.genLegs[l.gen]--
	d.releaseContext(l)
}

// releaseContext ends the context server's hold of leg l's pages.
func (d *disagg) releaseContext(l *leg) {
	c := l.ctxReq
	c.held = false
	if c.phase == phaseHeld {
		l.ctxOwner.retire(c)
	}
}

// completeLeg is a generation request's end: its request completed.
func (d *disagg) completeLeg(*request) { d.out.completed++ }

// fail ends leg l's request with err, counted in counter.
func (d *disagg) fail(l *leg, counter *int64, err error) {
	*counter++
	if len(d.failed) < MaxFailedReported {
		d.failed = append(d.failed, FailedRequest{ID: l.id, Error: err.Error()})
	}
}
