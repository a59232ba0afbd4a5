package mem

import (
	"context"
	"time"

	"github.com/kvctl/kvctl/pool"
)

var _ pool.LeaseReporter = (*Store)(nil)

// LeaseTTL is how long a Get, a size query or a leasing probe leases a key
// (Options.LeaseTTL).
func (s *Store) LeaseTTL() time.Duration { return s.opts.LeaseTTL }

// Leases writes each published key's lease deadline into until, or the
// zero Time when the key is absent or its lease has expired. Like Exist it
// grants no lease.
func (s *Store) Leases(ctx context.Context, keys []string, until []time.Time) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.begin(ctx, "leases", len(keys), len(until)); err != nil {
		return err
	}
	now := s.nowNanos()
	for i, k := range keys {
		until[i] = time.Time{}
		if o := s.lookupPublished(k); o != nil && leased(o, now) {
			until[i] = time.Unix(0, o.lease.Load())
		}
	}
	return nil
}
