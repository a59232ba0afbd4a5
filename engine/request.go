package engine

import (
	"encoding/binary"
	"strconv"

	"github.com/kvctl/kvctl/connector"
	"github.com/zeebo/xxh3"
)

// reqPhase is where a request is.
type reqPhase int

const (
	phaseWaiting reqPhase = iota
	phaseRunning
	phaseParked    // waiting outside the batch for an async load
	phaseFinishing // done; pages kept until its saves are confirmed
	phaseDone
	phaseHeld // done on a context server; pages kept until its KV is transferred
)

// request is the engine's state of one request.
type request struct {
	userID    string
	conn      connector.Request // ID, Chain, NumTokens, Blocks
	arrivalMS float64
	promptLen int
	outputLen int
	generated int
	phase     reqPhase
	alloc     allocation
	// computed is num_computed_tokens: tokens whose KV is in the pages.
	computed int
	// written counts the leading blocks whose pages hold their KV.
	written int
	// scheduled and loadTokens are the tokens the current pass computes
	// and loads.
	scheduled, loadTokens int
	// decodeSeed drives the generated tokens (NextToken).
	decodeSeed uint64
	// lastTokMS is when the last token came out, if one did.
	lastTokMS   float64
	hasFirstTok bool
	// covered is how many leading prompt tokens were ever served; each was
	// counted once, by what served it first.
	covered                      int
	localHit, poolHit, selfBuilt int
	// booked is the completion bound reserved for it, in blocks.
	booked int
	// prefillEstimate is the uncached prefill the work-aware router
	// estimated for it on its owner.
	prefillEstimate int
	// deferrals counts the passes its admission was deferred for an offer
	// the pages could not cover (admission query).
	deferrals int
	// held keeps its pages past its end while a disaggregated run
	// transfers its KV (retire defers to releaseHeld).
	held bool
	// pin holds the blocks of its transferred KV (a live generation
	// request) until its admission matches them (unpin).
	pin allocation
}

// completionBound is the KV blocks r needs through its output limit.
func (r *request) completionBound(t int) int { return ceilDiv(r.promptLen+r.outputLen, t) }

// newRequest makes the engine state of request a, whose prompt is
// hashed: the request keeps no tokens (the chain's hashes are all it
// needs, and generated tokens are a function of the decode seed).
func newRequest(seq int, a arrival, arrivalMS float64) *request {
	r := &request{userID: a.w.ID, arrivalMS: arrivalMS,
		promptLen: a.promptLen, outputLen: max(1, a.w.OutputLength), decodeSeed: a.seed}
	r.conn = connector.Request{ID: seqID(seq), Chain: a.chain}
	return r
}

// seqID is the connector's name of request seq: unique even when the
// workload repeats IDs.
func seqID(seq int) string { return "#" + strconv.Itoa(seq) }

// decodeSeed derives the synthetic model's output stream from the prompt's
// last tokens and length, so that equal prompts generate equal tokens.
func decodeSeed(tokens []int64) uint64 {
	var b [8 * 8]byte
	tail := tokens[max(0, len(tokens)-8):]
	for i, t := range tail {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(t))
	}
	return xxh3.HashSeed(b[:8*len(tail)], uint64(len(tokens)))
}

// cover counts the prompt tokens of [from, to) not served before into
// counter; ranges come in order from the start of the prompt.
func (r *request) cover(from, to int, counter *int) {
	to = min(to, r.promptLen)
	if to <= r.covered || from > r.covered {
		return
	}
	*counter += to - r.covered
	r.covered = to
}

// contextLen is the number of known tokens: the prompt and the tokens
// generated so far. The request computes from all of them after a
// preemption or restart.
func (r *request) contextLen() int { return r.promptLen + r.generated }
