package mem

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
)

// Remove deletes each key, as the master's Remove (master_service.cpp,
// MasterService::Remove): OK, ObjectNotFound (absent), ObjectHasLease
// when the key's lease has not expired or it is being read and force is
// false, or ReplicaIsNotReady when it is still being written (a Put
// between PutStart and PutEnd, an open Reservation), force or not.
// Hard- and soft-pinned objects are removable.
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
		case o == nil:
			results[i] = pool.ObjectNotFound
		case !o.published():
			results[i] = pool.ReplicaIsNotReady
		case !force && (leased(o, now) || o.readers.Load() > 0):
			results[i] = pool.ObjectHasLease
		default:
			s.unpublish(o)
			results[i] = pool.OK
		}
	}
	return nil
}

// RemoveAll removes every published object that Remove would remove with
// force, leases and readers not checked with force, as the master's
// RemoveAll (master_service.cpp, MasterService::RemoveAll), and returns
// how many it removed. Objects still being written stay.
func (s *Store) RemoveAll(ctx context.Context, force bool) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx, "remove all", 0, 0); err != nil {
		return 0, err
	}
	now := s.nowNanos()
	var victims []*object
	s.forEachObject(func(o *object) {
		if o.published() && (force || !leased(o, now) && o.readers.Load() == 0) {
			victims = append(victims, o)
		}
	})
	for _, o := range victims {
		s.unpublish(o)
	}
	return int64(len(victims)), nil
}

// unpublish takes a published object out of the index and frees its
// memory, at once or, when it is being read, at the last release; the
// caller holds s.mu exclusively.
func (s *Store) unpublish(o *object) {
	s.unindexAlone(o)
	s.leave(o)
	s.published.Add(-1)
	o.set(flagRemoved)
	if o.readers.Load() == 0 {
		s.freeObject(o)
	}
}

func errLengths(keys, got int, what string) error {
	return fmt.Errorf("%d keys but %d %s", keys, got, what)
}
