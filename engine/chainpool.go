package engine

import (
	"sync"

	"github.com/kvctl/kvctl/keys"
)

// chainPool recycles the chains of retired requests for the prompts the
// arrivals reader hashes next: a chain keeps its hash room, its window and
// its BLAKE2b state across Reset, so that a replay allocates them for the
// requests in flight rather than for every request of the trace. Only a
// run whose requests own their chains uses it (a disaggregated run hands
// a context request's chain to its generation request: it recycles none).
type chainPool struct {
	k    keys.Settings
	pool sync.Pool // *keys.Chain of k's block size and lookahead
}

// newChain is a chain of recipe k for scope: a recycled one reset to the
// scope's seed, or a new one.
func (p *chainPool) newChain(scope keys.Scope) (*keys.Chain, error) {
	c, ok := p.pool.Get().(*keys.Chain)
	if !ok {
		return p.k.NewChain(scope)
	}
	seed, err := keys.Seed(p.k.SeedScheme(), scope, p.k.Lookahead)
	if err != nil {
		p.pool.Put(c)
		return nil, err
	}
	c.Reset(seed)
	return c, nil
}

// recycle takes back the chain of a retired request; nothing may use it
// afterwards.
func (p *chainPool) recycle(c *keys.Chain) {
	if p != nil && c != nil {
		p.pool.Put(c)
	}
}
