package engine

import (
	"context"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/keys"
)

// Observer sees a replay's pool lookups and first tokens as they happen
// (Config.Observer), to tell when in the replay reuse was lost. The engine
// calls it from its own goroutine, at modelled times in milliseconds
// since the clock started; it must not keep the slices it is given.
type Observer interface {
	// Lookup is one lookup of the connector's scheduler half: the chain
	// hashes of the candidate blocks, in chain order, and whether each
	// block had every page in the pool (a lookup that failed is not
	// seen).
	Lookup(atMS float64, hashes []keys.Hash, present []bool)
	// FirstToken is a request's first token: its arrival time and its
	// time to first token.
	FirstToken(arrivalMS, ttftMS float64)
}

// observedProber shows every lookup of the prober it wraps to an
// Observer.
type observedProber struct {
	connector.Prober
	clock *Clock
	obs   Observer
}

// CountPrefixHit asks the wrapped prober and shows the answer.
func (p observedProber) CountPrefixHit(ctx context.Context, hashes []keys.Hash) (int, []bool, error) {
	hit, present, err := p.Prober.CountPrefixHit(ctx, hashes)
	if err == nil {
		p.obs.Lookup(p.clock.ElapsedMS(), hashes, present)
	}
	return hit, present, err
}

// PercentilesOf returns the percentiles of xs, as a Report's latencies
// are computed (xs is reordered in place), zero when xs is empty.
func PercentilesOf(xs []float64) Percentiles { return percentilesOf(xs) }
