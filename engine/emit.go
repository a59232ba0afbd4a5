package engine

// emit appends the next token of every request whose known tokens are all
// computed (the end of its prefill, or a decode step), at the pass's end
// time, and finishes requests that reached their output length.
func (e *engine) emit() {
	now := e.clock.ElapsedMS()
	for _, r := range e.batch {
		if r.phase != phaseRunning || r.computed != r.contextLen() {
			continue
		}
		e.token[0] = NextToken(r.decodeSeed, r.contextLen())
		r.conn.Chain.Extend(e.token[:])
		r.generated++
		e.counts.outputTokens++
		e.counts.lastTokenMS = now
		if !r.hasFirstTok {
			r.hasFirstTok = true
			e.lat.ttft = append(e.lat.ttft, now-r.arrivalMS)
			if e.cfg.Observer != nil {
				e.cfg.Observer.FirstToken(r.arrivalMS, now-r.arrivalMS)
			}
		} else {
			e.lat.itl = appendSample(e.lat.itl, float32(now-r.lastTokMS))
		}
		r.lastTokMS = now
		e.writeBlocks(r)
		if r.generated >= r.outputLen {
			e.finish(r)
		}
	}
}

// finish ends a request that produced all its tokens (request_finished):
// its pages are freed now, or once its saves are confirmed.
func (e *engine) finish(r *request) {
	e.removeRunning(r)
	e.counts.completed++
	e.counts.completedPromptTokens += int64(r.promptLen)
	e.counts.localHitTokens += int64(r.localHit)
	e.counts.poolHitTokens += int64(r.poolHit)
	if e.onFinish != nil {
		e.onFinish(r)
	}
	if e.sched.RequestFinished(r.conn.ID) {
		r.phase = phaseFinishing
		e.finishing = append(e.finishing, r)
		return
	}
	e.retire(r)
}

// retire frees a finished request's pages and drops its chain and block
// lists (recycled when the run recycles them: engine.chains, allocs); a
// held request keeps them until released (releaseHeld).
func (e *engine) retire(r *request) {
	if r.held {
		r.phase = phaseHeld
		return
	}
	r.phase = phaseDone
	e.unbook(r)
	e.kv.release(&r.alloc)
	e.allocs.recycle(&r.alloc)
	e.chains.recycle(r.conn.Chain)
	r.conn.Blocks, r.conn.Chain = nil, nil
}

// releaseFinishing retires the finished requests whose saves are all
// confirmed.
func (e *engine) releaseFinishing() {
	kept := e.finishing[:0]
	for _, r := range e.finishing {
		if e.sched.PendingSaves(r.conn.ID) > 0 {
			kept = append(kept, r)
			continue
		}
		e.sched.Forget(r.conn.ID)
		e.retire(r)
	}
	clear(e.finishing[len(kept):])
	e.finishing = kept
}
