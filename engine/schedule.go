package engine

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/keys"
)

// queue is the FCFS waiting queue; preempted and restarted requests go
// back to its front.
type queue struct {
	items []*request
	head  int
}

func (q *queue) len() int { return len(q.items) - q.head }

func (q *queue) peek() *request { return q.items[q.head] }

func (q *queue) pushBack(r *request) { q.items = append(q.items, r) }

func (q *queue) popFront() *request {
	r := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return r
}

func (q *queue) pushFront(r *request) {
	if q.head > 0 {
		q.head--
		q.items[q.head] = r
		return
	}
	q.items = append(q.items, nil)
	copy(q.items[1:], q.items)
	q.items[0] = r
}

// schedule forms the next pass (FCFS): running requests first, in
// admission order (a decoding request takes one token, a prefilling one a
// chunk of what is left of the token budget), then waiting requests while
// there are slots (max_batch_size), tokens (max_num_tokens) and pages.
// A running request that finds no page for its next token preempts the
// newest running request (itself when it is the newest).
func (e *engine) schedule(ctx context.Context) error {
	e.batch = e.batch[:0]
	budget, slots := e.cfg.Scheduler.MaxNumTokens, e.cfg.Scheduler.MaxBatchSize
	for i := 0; i < len(e.running) && budget > 0 && slots > 0; i++ {
		r := e.running[i]
		n := min(r.contextLen()-r.computed, budget)
		if n = e.reserve(r, n); n == 0 {
			continue // r preempted itself: it was the last one
		}
		r.scheduled, r.loadTokens = n, 0
		e.batch = append(e.batch, r)
		budget -= n
		slots--
	}
	parks := 0
	for e.waiting.len() > 0 && budget > 0 && slots > 0 {
		r := e.waiting.peek()
		res, err := e.admit(ctx, r, budget)
		if err != nil {
			return err
		}
		if res == admitNone {
			break
		}
		e.waiting.popFront()
		e.unpin(r)
		if res == admitParked {
			budget, slots = e.chargePark(r, budget, slots, &parks)
			continue
		}
		r.phase = phaseRunning
		e.running = append(e.running, r)
		e.batch = append(e.batch, r)
		budget -= r.scheduled
		slots--
	}
	return nil
}

// reserve allocates the pages for n more tokens of running request r,
// shrinking n to what the pages allow and preempting the newest running
// requests when not even one token fits. It returns the tokens reserved,
// 0 when r itself was preempted.
func (e *engine) reserve(r *request, n int) int {
	t := e.perBlock
	for {
		have := r.alloc.numBlocks()
		fit := (have+e.kv.available())*t - r.computed
		if fit >= 1 {
			n = min(n, fit)
			if !e.kv.grow(&r.alloc, ceilDiv(r.computed+n, t)) {
				panic("engine: grow failed within available pages")
			}
			r.conn.Blocks = r.alloc.blocks
			return n
		}
		victim := e.running[len(e.running)-1]
		e.preempt(victim)
		if victim == r {
			return 0
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// admitResult is what admission did with a waiting request.
type admitResult int

const (
	admitNone   admitResult = iota // no room: it stays at the head of the queue
	admitRun                       // it joins this pass
	admitParked                    // it waits outside the batch for its async load
)

// admit tries to start waiting request r with at most budget tokens: local
// match, connector lookup, offer settled to what the pages allow, pages
// allocated. It returns admitNone, changing nothing, when the pages cannot
// take even one token beyond the local match. With AsyncLoad, a request
// with blocks to load is parked instead (admitParked).
func (e *engine) admit(ctx context.Context, r *request, budget int) (admitResult, error) {
	t := e.perBlock
	chain := r.conn.Chain
	if !e.canReserve(r) {
		return admitNone, nil
	}
	if cap(r.alloc.blocks) == 0 {
		n := ceilDiv(r.promptLen+r.outputLen, t)
		r.alloc.blocks, r.alloc.nodes = e.allocs.take(n)
	}
	r.conn.NumTokens = r.contextLen()
	limit := keys.OfferableBlocks(r.contextLen(), t, chain.NumBlocks())
	k := e.kv.match(&r.alloc, chain.Hashes(), limit)
	matched := e.localMatch(k)
	e.kv.truncate(&r.alloc, matched/t)
	avail := e.kv.available()
	if (len(r.alloc.blocks)+avail)*t-matched < 1 {
		e.kv.release(&r.alloc)
		return admitNone, nil
	}
	r.computed, r.written = matched, matched/t
	r.cover(0, matched, &r.localHit)
	offer, err := e.sched.GetNumNewMatchedTokens(ctx, &r.conn, matched)
	if err != nil {
		return admitNone, fmt.Errorf("request %q: %w", r.userID, err)
	}
	room := (len(r.alloc.blocks)+avail)*t - matched // tokens the pages can take
	if e.deferOffer(r, offer, room) {
		return admitNone, nil
	}
	return e.settle(ctx, r, matched, offer, room, budget)
}

// settle honours as much of waiting request r's offer as room (tokens the
// pages can take beyond the local match) allows, sizes its first chunk,
// allocates its pages and settles the offer with the connector; with
// AsyncLoad, a request offered blocks parks, even when the pages honour
// none of them: as TensorRT-LLM's kv_cache_connector.py
// commit_new_matched_tokens says, the runtime parks and loads what it
// honoured (then nothing, which completes at once) and recomputes the rest.
func (e *engine) settle(ctx context.Context, r *request, matched, offer, room, budget int) (admitResult, error) {
	t := e.perBlock
	honoured := min(offer, (room-1)/t*t)
	chunk := min(r.contextLen()-matched-honoured, budget, room-honoured)
	parks := e.cfg.Connector.AsyncLoad && offer > 0
	if parks {
		chunk = 0 // the load runs outside the batch
	}
	if !e.kv.grow(&r.alloc, ceilDiv(matched+honoured+chunk, t)) {
		panic("engine: grow failed within available pages")
	}
	r.conn.Blocks = r.alloc.blocks
	if err := e.sched.UpdateStateAfterAlloc(&r.conn, matched, 0, honoured); err != nil {
		return admitNone, fmt.Errorf("request %q: %w", r.userID, err)
	}
	r.loadTokens, r.scheduled = honoured, chunk
	e.book(r)
	if parks {
		return admitParked, e.park(ctx, r)
	}
	return admitRun, nil
}

// localMatch turns k matched blocks into matched tokens: the draft's
// backoff (local_reuse_backoff align: back off by the lookahead, then
// align down to a block; off: take the match whole), then
// reuse_match_alignment. Matches are whole blocks: a partially matched
// block is recomputed into a private block.
func (e *engine) localMatch(k int) int {
	t := e.perBlock
	m := k * t
	if e.cfg.Scheduler.LocalReuseBackoff == BackoffAlign && e.cfg.Keys.Lookahead > 0 && m > 0 {
		m = max(0, m-e.cfg.Keys.Lookahead) / t * t
	}
	m = e.kv.alignMatch(m)
	return m / t * t
}

// preempt frees a running request's pages and puts it back at the front
// of the waiting queue; it recomputes from its local and pool matches
// when readmitted.
func (e *engine) preempt(r *request) {
	e.counts.preemptions++
	e.rewind(r)
}

// rewind frees r's allocation, forgets its progress and readmits it at
// the front of the waiting queue (a restart after a failed load, or a
// preemption).
func (e *engine) rewind(r *request) {
	e.unbook(r)
	e.kv.release(&r.alloc)
	r.conn.Blocks = nil
	r.computed, r.written, r.scheduled, r.loadTokens = 0, 0, 0, 0
	e.sched.RequestReset(r.conn.ID)
	e.removeRunning(r)
	r.phase = phaseWaiting
	e.waiting.pushFront(r)
}

func (e *engine) removeRunning(r *request) {
	for i, x := range e.running {
		if x == r {
			copy(e.running[i:], e.running[i+1:])
			e.running[len(e.running)-1] = nil
			e.running = e.running[:len(e.running)-1]
			return
		}
	}
}

// canReserve reports whether waiting request r's completion bound fits
// beside the bounds of the admitted requests (always, without
// SchedulerConfig.CompletionReservation).
func (e *engine) canReserve(r *request) bool {
	if e.boundFits(r) {
		return true
	}
	e.counts.reservationWaits++
	return false
}

// boundFits is canReserve without counting a wait.
func (e *engine) boundFits(r *request) bool {
	return !e.cfg.Scheduler.CompletionReservation || e.reserved+r.completionBound(e.perBlock) <= e.pages.blocks
}

// book records admitted request r's completion bound; unbook releases it.
func (e *engine) book(r *request) {
	if e.cfg.Scheduler.CompletionReservation {
		r.booked = r.completionBound(e.perBlock)
		e.reserved += r.booked
	}
}

func (e *engine) unbook(r *request) {
	e.reserved -= r.booked
	r.booked = 0
}

// deferOffer is the admission query's deferral: when the pages cannot
// take waiting request r's whole offer and a token, it releases r's
// allocation and defers it to a later pass, at most MaxOfferDeferrals
// times; then the offer is trimmed to the pages as without the query.
func (e *engine) deferOffer(r *request, offer, room int) bool {
	if !e.cfg.Scheduler.AdmissionQuery || offer == 0 || room > offer || r.deferrals >= e.cfg.Scheduler.MaxOfferDeferrals {
		return false
	}
	r.deferrals++
	e.counts.offerDeferrals++
	e.kv.release(&r.alloc)
	r.computed, r.written = 0, 0
	return true
}

// chargePark charges a request that parked for its async load. Without
// the admission query it takes nothing. With it, it takes a slot, and the
// tokens of the chunk it would have run beyond the first
// MaxUnchargedParks parks of the pass (parks counts them).
func (e *engine) chargePark(r *request, budget, slots int, parks *int) (int, int) {
	if !e.cfg.Scheduler.AdmissionQuery {
		return budget, slots
	}
	*parks++
	if *parks <= e.cfg.Scheduler.MaxUnchargedParks {
		e.counts.unchargedParks++
		return budget, slots - 1
	}
	return budget - min(budget, r.contextLen()-r.computed-r.loadTokens), slots - 1
}
