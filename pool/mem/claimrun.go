package mem

import "github.com/kvctl/kvctl/pool"

// Batched claims. A put claims its keys as a batched lookup finds them
// (lookupall.go): lookupRun keys at a time in phases, every key probed
// first, so that the probes' cache misses overlap, then every key not
// found claimed, its chain of the index now in the cache. A key the probe
// found is refused as the claim's own walk of its chain would have
// refused it.

// claimRun claims the keys of objs, at most lookupRun objects that
// newObjects made (nil for invalid items), in call order: it writes each
// one's code, sets the objects that are not OK to nil and appends the OK
// ones to fresh. It returns fresh and how many keys existed; the caller
// holds s.mu shared.
func (s *Store) claimRun(objs []*object, codes []pool.Code, fresh []*object) ([]*object, int64) {
	var keys [lookupRun]string
	var found [lookupRun]*object
	for i, o := range objs {
		if o != nil {
			keys[i] = o.key
		}
	}
	s.index.loadRun(keys[:len(objs)], found[:])
	var existing int64
	for i, o := range objs {
		switch {
		case o == nil:
			codes[i] = pool.InvalidParams
		case found[i] != nil || !s.claim(o):
			codes[i], objs[i] = pool.ObjectAlreadyExists, nil
			existing++
		default:
			codes[i] = pool.OK
			fresh = append(fresh, o)
		}
	}
	return fresh, existing
}
