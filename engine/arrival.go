package engine

import (
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
)

// arrival is a workload request with its prompt already hashed: what the
// engine needs of its tokens (the chain, the decode seed, the length), so
// that the hashing can run ahead of the engine on another goroutine
// (arrivals) and the request keeps no tokens.
type arrival struct {
	w         workload.Request // Tokens dropped: the source may reuse them
	promptLen int
	chain     *keys.Chain // the prompt hashed; nil when err is not
	err       error       // NewChain's
	seed      uint64      // decodeSeed of the prompt
}

// hashArrival hashes w's prompt into a new chain of recipe k, with room
// for the hashes of every block its prompt and output can fill, and hashes
// the blocks of its output ahead (keys.Chain.HashAhead): its output tokens
// are NextToken's, so the engine's decode steps extend the chain without
// hashing.
func hashArrival(k keys.Settings, w workload.Request) arrival {
	return hashArrivalWith(k.NewChain, w)
}

// hashArrivalWith is hashArrival with the chain from newChain.
func hashArrivalWith(newChain func(keys.Scope) (*keys.Chain, error), w workload.Request) arrival {
	a := beginArrival(newChain, w)
	if a.chain != nil {
		a.chain.Extend(w.Tokens)
		a.hashOutputAhead()
	}
	return a
}

// beginArrival is w's arrival before any hashing: its decode seed and
// prompt length, and a chain from newChain with room for the hashes of
// every block its prompt and output can fill.
func beginArrival(newChain func(keys.Scope) (*keys.Chain, error), w workload.Request) arrival {
	a := arrival{promptLen: len(w.Tokens), seed: decodeSeed(w.Tokens)}
	a.chain, a.err = newChain(w.Scope())
	if a.chain != nil {
		a.chain.Grow((len(w.Tokens) + max(1, w.OutputLength)) / a.chain.TokensPerBlock())
	}
	a.w, a.w.Tokens = w, nil
	return a
}

// hashOutputAhead hashes the blocks of the output ahead, once the prompt
// is in the chain.
func (a *arrival) hashOutputAhead() {
	a.chain.HashAhead(max(1, a.w.OutputLength), func(i int) int64 { return NextToken(a.seed, a.promptLen+i) })
}
