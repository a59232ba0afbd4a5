package engine

import (
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
)

// arrivalBatch is the most requests the arrivals reader hashes together.
// Their prompts go through keys.ExtendAll as one batch, eight chains at a
// time in the lanes of the AVX-512 registers where the CPU has them: one
// chain at a time is bound by the latency of a BLAKE2b compression, and
// the whole-trace replay spent 3.1 of its 11 CPU seconds there. ExtendAll
// feeds a lane the next prompt when its prompt is done, so lanes idle only
// at a batch's end, behind its longest prompt.
const arrivalBatch = 32

// arrivalBatchTokens is the room of a batch's token buffer (2 MiB of
// tokens): a batch ends before a request whose prompt would not fit in
// what is left, so that the copy stays small and the buffer, made once,
// never grows (but for a single prompt longer than the room). Prompts of
// the conversation trace average 12,000 tokens: some 20 to a batch.
const arrivalBatchTokens = 256 << 10

// arrivalBatcher gathers requests for one batch. Their tokens are copied
// into one buffer kept across batches, because a source may hand every
// request the same token buffer (workload.FileSource.ReuseTokens).
type arrivalBatcher struct {
	reqs   []workload.Request
	ends   []int // each request's end in tokens
	tokens []int64
	// The batch's arrivals and ExtendAll's arguments, kept across batches.
	out    []arrival
	chains []*keys.Chain
	prompt [][]int64
}

// fits reports whether w can join the batch: it is empty, or has room
// for w's prompt and another request.
func (b *arrivalBatcher) fits(w workload.Request) bool {
	return len(b.reqs) == 0 || len(b.reqs) < arrivalBatch && len(b.tokens)+len(w.Tokens) <= cap(b.tokens)
}

// add copies w into the batch, which must have room for it (fits).
func (b *arrivalBatcher) add(w workload.Request) {
	if b.tokens == nil {
		b.tokens = make([]int64, 0, arrivalBatchTokens)
	}
	b.tokens = append(b.tokens, w.Tokens...)
	w.Tokens = nil
	b.reqs = append(b.reqs, w)
	b.ends = append(b.ends, len(b.tokens))
}

// hash hashes the batch's requests as hashArrivalWith would, one by one,
// and empties the batch. The arrivals returned are valid until the next
// call.
func (b *arrivalBatcher) hash(newChain func(keys.Scope) (*keys.Chain, error)) []arrival {
	b.out, b.chains, b.prompt = b.out[:0], b.chains[:0], b.prompt[:0]
	start := 0
	for i, w := range b.reqs {
		w.Tokens = b.tokens[start:b.ends[i]:b.ends[i]]
		start = b.ends[i]
		a := beginArrival(newChain, w)
		if a.chain != nil {
			b.chains, b.prompt = append(b.chains, a.chain), append(b.prompt, w.Tokens)
		}
		b.out = append(b.out, a)
	}
	keys.ExtendAll(b.chains, b.prompt)
	for i := range b.out {
		if b.out[i].chain != nil {
			b.out[i].hashOutputAhead()
		}
	}
	clear(b.reqs)
	clear(b.chains)
	clear(b.prompt)
	b.reqs, b.ends, b.tokens = b.reqs[:0], b.ends[:0], b.tokens[:0]
	return b.out
}
