package engine

import (
	"encoding/binary"
	"strconv"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/keys"
	"github.com/zeebo/xxh3"
)

// reqPhase is where a request is.
type reqPhase int

const (
	phaseWaiting reqPhase = iota
	phaseRunning
	phaseFinishing // done; pages kept until its saves are confirmed
	phaseDone
)

// request is the engine's state of one request.
type request struct {
	userID    string
	conn      connector.Request // ID, Chain, NumTokens, Blocks
	seq       int
	arrivalMS float64
	tokens    []int64 // prompt, then generated tokens
	promptLen int
	outputLen int
	generated int
	phase     reqPhase
	alloc     allocation
	// computed is num_computed_tokens: tokens whose KV is in the pages.
	computed int
	// written counts the leading blocks whose pages hold their KV.
	written int
	// per pass
	scheduled   int
	loadTokens  int
	decodeSeed  uint64
	firstTokMS  float64
	lastTokMS   float64
	hasFirstTok bool
	// covered is how many leading prompt tokens were ever served, and by
	// what (first time only), for the hit counters.
	covered                      int
	localHit, poolHit, selfBuilt int
}

// newRequest makes the engine state of a workload request; the chain is
// seeded but not extended until admission.
func newRequest(seq int, id string, tokens []int64, arrivalMS int64, outputLen int, chain *keys.Chain) *request {
	r := &request{userID: id, seq: seq, arrivalMS: float64(arrivalMS), tokens: tokens,
		promptLen: len(tokens), outputLen: max(1, outputLen)}
	r.conn = connector.Request{ID: seqID(seq), Chain: chain}
	r.decodeSeed = decodeSeed(tokens)
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

// cover counts prompt tokens [from, to) as served by kind the first time
// they are served.
func (r *request) cover(from, to int, counter *int) {
	to = min(to, r.promptLen)
	if to <= r.covered || from > r.covered {
		return
	}
	*counter += to - r.covered
	r.covered = to
}

// context is the number of tokens the request computes from: the prompt,
// or prompt and generated tokens after a preemption or restart.
func (r *request) contextLen() int { return len(r.tokens) }
