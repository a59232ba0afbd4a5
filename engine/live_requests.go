package engine

import (
	"context"
	"fmt"
	"slices"
)

// arrive registers a submitted request with the owner the router picks;
// one the engine refuses ends at once with a *RequestError.
func (l *Live) arrive(ctx context.Context, lr *liveReq) {
	if lr.cancelled {
		l.cancelled++
		l.first().counts.failed++
		l.publish()
		lr.stream.end(LiveUsage{}, ErrCancelled)
		return
	}
	now := l.first().clock.ElapsedMS()
	lr.w.ArrivalMS = int64(now)
	failed := l.first().counts.failed
	owner, r, err := l.c.arrive(ctx, lr.w, now)
	if err != nil || r == nil {
		err = l.refusal(lr.w.ID, failed, err)
		l.publish() // Stats count the refusal before its caller hears of it
		lr.stream.end(LiveUsage{PromptTokens: len(lr.w.Tokens)}, err)
		return
	}
	lr.owner, lr.r = owner, r
	if lr.kv != nil {
		if err := l.install(owner, r, lr.kv); err != nil {
			removeQueued(&owner.waiting, r)
			r.phase = phaseDone
			owner.counts.failed++
			l.publish() // Stats count the mismatches before the caller hears of them
			lr.stream.end(LiveUsage{PromptTokens: r.promptLen}, fmt.Errorf("request %s: %w", lr.w.ID, err))
			return
		}
	}
	r.held = lr.holdAs != ""
	l.active = append(l.active, lr)
}

// refusal is why arrive refused request id: the failure it recorded (the
// live engine keeps no list of failures), or err.
func (l *Live) refusal(id string, failedBefore int64, err error) error {
	out := l.first().outcome
	msg := "refused"
	if err != nil {
		msg = err.Error()
	}
	if out.counts.failed > failedBefore && len(out.failed) > 0 {
		msg = out.failed[len(out.failed)-1].Error
	}
	out.failed = out.failed[:0]
	return &RequestError{ID: id, Msg: msg}
}

// cancel frees a request whose context ended: a waiting one leaves the
// queue, a running one is finished early (its pages are kept until the
// saves of its computed blocks are confirmed); a parked one is freed once
// its load settled (deliver); a finished one is left alone.
func (l *Live) cancel(lr *liveReq) {
	lr.cancelled = true
	if lr.r == nil || !slices.Contains(l.active, lr) {
		return // not arrived yet (arrive ends it) or already ended
	}
	e, r := lr.owner, lr.r
	r.held = false // nothing to transfer
	switch r.phase {
	case phaseWaiting:
		e.unpin(r)
		removeQueued(&e.waiting, r)
		r.phase = phaseDone
		r.conn.Chain = nil
	case phaseRunning:
		e.removeRunning(r)
		if e.sched.RequestFinished(r.conn.ID) {
			r.phase = phaseFinishing
			e.finishing = append(e.finishing, r)
		} else {
			e.retire(r)
		}
	default:
		return
	}
	l.cancelled++
	e.counts.failed++
	l.drop(lr)
	l.publish() // Stats count the cancel before its caller hears of it
	lr.stream.end(LiveUsage{}, ErrCancelled)
}

// removeQueued removes r from q.
func removeQueued(q *queue, r *request) {
	i := slices.Index(q.items[q.head:], r)
	if i < 0 {
		return
	}
	q.items = slices.Delete(q.items, q.head+i, q.head+i+1)
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
}

// drop removes lr from the requests in flight.
func (l *Live) drop(lr *liveReq) {
	if i := slices.Index(l.active, lr); i >= 0 {
		l.active = slices.Delete(l.active, i, i+1)
	}
}

// deliver pushes each request's new tokens to its stream and ends the
// streams of the requests that finished; a cancelled request whose async
// load settled is freed now.
func (l *Live) deliver() {
	now := l.first().clock.ElapsedMS()
	kept, ended := l.active[:0], []*liveReq(nil)
	for _, lr := range l.active {
		r := lr.r
		if lr.cancelled && (r.phase == phaseRunning || r.phase == phaseWaiting) {
			kept = append(kept, lr) // cancel below, outside this loop
			continue
		}
		l.push(lr, now)
		if r.phase == phaseFinishing || r.phase == phaseDone || r.phase == phaseHeld {
			if r.held {
				l.hold(lr)
			}
			ended = append(ended, lr)
			continue
		}
		kept = append(kept, lr)
	}
	clear(l.active[len(kept):])
	l.active = kept
	for _, lr := range slices.Clone(l.active) {
		if lr.cancelled {
			l.cancel(lr)
		}
	}
	// the live engine reports no percentiles: keep no samples
	out := l.first().outcome
	out.lat.ttft, out.lat.itl = out.lat.ttft[:0], out.lat.itl[:0]
	// Stats count a request before its caller hears it ended.
	l.publish()
	for _, lr := range ended {
		r := lr.r
		lr.stream.end(LiveUsage{PromptTokens: r.promptLen, CompletionTokens: r.generated,
			LocalHitTokens: r.localHit, PoolHitTokens: r.poolHit, TTFTMS: lr.stream.ttftMS}, nil)
	}
}

// push sends the tokens lr's request generated since the last push; the
// i-th generated token is NextToken(seed, prompt length + i) (emit).
func (l *Live) push(lr *liveReq, now float64) {
	r := lr.r
	if r.generated == lr.sent {
		return
	}
	if lr.sent == 0 {
		lr.stream.ttftMS = now - r.arrivalMS
	}
	tokens := make([]int64, 0, r.generated-lr.sent)
	for i := lr.sent; i < r.generated; i++ {
		tokens = append(tokens, NextToken(r.decodeSeed, r.promptLen+i))
	}
	l.generated += int64(len(tokens))
	lr.sent = r.generated
	lr.stream.push(tokens...)
}

// unstick fails the head of a queue that cannot be admitted with nothing
// else in flight on its owner (a replay stops there; a server goes on).
func (l *Live) unstick() {
	for _, e := range l.c.owners {
		err := e.failStuck()
		if err == nil {
			continue
		}
		r := e.waiting.popFront()
		e.unpin(r)
		r.held = false
		r.phase = phaseDone
		e.counts.failed++
		for _, lr := range l.active {
			if lr.r == r {
				l.drop(lr)
				l.publish()
				lr.stream.end(LiveUsage{PromptTokens: r.promptLen}, &RequestError{ID: lr.w.ID, Msg: err.Error()})
				break
			}
		}
	}
}
