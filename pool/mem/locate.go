package mem

import (
	"context"

	"github.com/kvctl/kvctl/pool"
)

var _ pool.Locator = (*Store)(nil)

// Locate writes each published key's size, segment and offset into locs,
// and ObjectNotFound for the others. Like Exist it grants no lease.
func (s *Store) Locate(ctx context.Context, keys []string, locs []pool.Location) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.begin(ctx, "locate", len(keys), len(locs)); err != nil {
		return err
	}
	for i, k := range keys {
		o := s.lookupPublished(k)
		if o == nil || o.seg < 0 {
			locs[i] = pool.Location{Code: pool.ObjectNotFound}
			continue
		}
		locs[i] = pool.Location{Code: pool.OK, Size: o.size, Segment: s.segs[o.seg].name, Offset: o.off}
	}
	return nil
}
