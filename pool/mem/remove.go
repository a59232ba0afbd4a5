package mem

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
)

// Remove deletes each key: OK, ObjectNotFound (absent or not yet
// published), or ObjectHasLease when the key's lease has not expired or it
// is being read and force is false. Hard- and soft-pinned objects are
// removable.
func (s *Store) Remove(ctx context.Context, keys []string, force bool, results []pool.Code) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx, "remove", len(keys), len(results)); err != nil {
		return err
	}
	now := s.nowNanos()
	for i, k := range keys {
		o := s.lookup(k)
		switch {
		case o == nil || !o.published.Load():
			results[i] = pool.ObjectNotFound
		case !force && (leased(o, now) || o.readers.Load() > 0):
			results[i] = pool.ObjectHasLease
		default:
			s.unpublish(o)
			results[i] = pool.OK
		}
	}
	return nil
}

// unpublish takes a published object out of the index and frees its
// memory, at once or, when it is being read, at the last release; the
// caller holds s.mu exclusively.
func (s *Store) unpublish(o *object) {
	s.unindex(o)
	s.leave(o)
	s.published.Add(-1)
	o.removed.Store(true)
	if o.readers.Load() == 0 {
		s.freeObject(o)
	}
}

func errLengths(keys, got int, what string) error {
	return fmt.Errorf("%d keys but %d %s", keys, got, what)
}
