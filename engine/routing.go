package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/kvctl/kvctl/keys"
)

// Routing is the attention-DP router's policy: how a run of several
// owners (Config.AttentionDP) places each arriving request on one.
type Routing string

// The routing policies. Ties go round robin from the owner after the one
// picked last; kv-aware and work-aware then prefer the owner with the
// fewest requests in flight.
const (
	// RouteLeastLoaded places a request on the owner with the fewest
	// requests in flight (waiting, running or parked): the default.
	RouteLeastLoaded Routing = "least-loaded"
	// RouteRoundRobin places requests on the owners in turn.
	RouteRoundRobin Routing = "round-robin"
	// RouteKVAware places a request on the owner whose local cache (its
	// radix tree) holds the longest prefix of its prompt: the most local
	// reuse.
	RouteKVAware Routing = "kv-aware"
	// RouteWorkAware balances uncached prefill: a request's estimated
	// prefill on an owner is its prompt tokens minus what that owner's
	// local cache or the pool would serve (the longer of its local match
	// and a pool lookup made at routing time), and it goes to the owner
	// whose pending prefill (the estimates of its waiting requests, the
	// prompt tokens its admitted ones have yet to compute) plus that
	// estimate is least.
	RouteWorkAware Routing = "work-aware"
)

// Routings are the routing policies, the default first.
var Routings = []Routing{RouteLeastLoaded, RouteRoundRobin, RouteKVAware, RouteWorkAware}

// validate checks r, defaults filled, for a run of owners owners.
func (r Routing) validate(owners int) error {
	switch {
	case !slices.Contains(Routings, r):
		return fmt.Errorf("adp routing %q: want one of %v", r, Routings)
	case r != RouteLeastLoaded && owners <= 1:
		return fmt.Errorf("adp routing %s places requests on attention-DP owners: it needs attention dp above 1", r)
	}
	return nil
}

// route picks the owner of arriving request r by the run's policy.
func (c *cluster) route(ctx context.Context, r *request) (*engine, error) {
	var best int
	switch c.routing {
	case RouteRoundRobin:
		best = (c.last + 1) % len(c.owners)
	case RouteKVAware:
		best = c.pickLeast(func(e *engine) [2]int64 { return [2]int64{-int64(e.localMatchBlocks(r)), e.inFlight()} })
	case RouteWorkAware:
		poolBlocks, err := c.poolMatchBlocks(ctx, r)
		if err != nil {
			return nil, err
		}
		best = c.pickLeast(func(e *engine) [2]int64 {
			return [2]int64{e.pendingPrefill() + int64(e.uncachedPrefill(r, poolBlocks)), e.inFlight()}
		})
		r.prefillEstimate = c.owners[best].uncachedPrefill(r, poolBlocks)
	default:
		best = c.pickLeast(func(e *engine) [2]int64 { return [2]int64{e.inFlight(), 0} })
	}
	c.last = best
	c.placed[best]++
	return c.owners[best], nil
}

// pickLeast returns the index of the owner of least score, compared in
// order of its elements; ties go to the owner first after the one picked
// last.
func (c *cluster) pickLeast(score func(*engine) [2]int64) int {
	best, least := -1, [2]int64{}
	for k := range c.owners {
		i := (c.last + 1 + k) % len(c.owners)
		s := score(c.owners[i])
		if best < 0 || s[0] < least[0] || s[0] == least[0] && s[1] < least[1] {
			best, least = i, s
		}
	}
	return best
}

// inFlight counts the owner's requests waiting, running or parked.
func (e *engine) inFlight() int64 {
	return int64(e.waiting.len() + len(e.running) + len(e.async.parked))
}

// offerLimit is how many leading blocks of r a lookup may offer: never
// the block holding its last known token.
func (e *engine) offerLimit(r *request) int {
	return keys.OfferableBlocks(r.contextLen(), e.perBlock, r.conn.Chain.NumBlocks())
}

// localMatchBlocks is how many leading blocks of r the owner's radix tree
// holds now (a look, taking no reference).
func (e *engine) localMatchBlocks(r *request) int {
	return e.kv.tree.matchLen(r.conn.Chain.Hashes(), e.offerLimit(r))
}

// poolMatchBlocks looks r's prompt up in the pool, as admission would:
// the leading blocks whose pages are all there (0 when the connector
// loads nothing).
func (c *cluster) poolMatchBlocks(ctx context.Context, r *request) (int, error) {
	e := c.owners[0]
	if !e.cfg.Connector.loads() {
		return 0, nil
	}
	hit, _, err := e.worker.CountPrefixHit(ctx, r.conn.Chain.Hashes()[:e.offerLimit(r)])
	if err != nil {
		return 0, fmt.Errorf("engine: routing lookup of request %q: %w", r.userID, err)
	}
	return hit, nil
}

// uncachedPrefill is r's estimated prefill on this owner: its prompt
// tokens beyond the longer of the owner's local match and the pool's
// poolBlocks.
func (e *engine) uncachedPrefill(r *request, poolBlocks int) int {
	served := max(e.localMatchBlocks(r), poolBlocks) * e.perBlock
	return max(0, r.promptLen-served)
}

// pendingPrefill is the prefill the owner has yet to run: the estimates of
// its waiting requests and the prompt tokens its running and parked
// requests have not computed or loaded.
func (e *engine) pendingPrefill() int64 {
	var n int64
	for _, r := range e.waiting.items[e.waiting.head:] {
		n += int64(r.prefillEstimate)
	}
	for _, r := range e.running {
		n += int64(max(0, r.promptLen-r.computed-r.loadTokens))
	}
	for _, p := range e.async.parked {
		n += int64(max(0, p.r.promptLen-p.r.computed-p.r.loadTokens))
	}
	return n
}
