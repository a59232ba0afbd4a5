package mem

import (
	"context"

	"github.com/kvctl/kvctl/pool"
)

// Put stores each item whose key is absent. It validates the items and
// makes their objects without the lock, allocates every item under one
// lock (PutStart), copies the bytes without the lock and publishes them
// under a second (PutEnd). Per item: OK, ObjectAlreadyExists (a no-op; the
// first writer's bytes stay), InvalidParams (empty or too long key, empty
// value, nil Value outside metadata-only mode, a value larger than an arena,
// a bad soft pin TTL) or NoAvailableHandle (no room; the next eviction step
// runs even below the watermark).
func (s *Store) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	pending := s.newObjects(items, false)
	s.mu.Lock()
	if err := s.begin(ctx, "put", len(items), len(results)); err != nil {
		s.mu.Unlock()
		return err
	}
	for i := range items {
		pending[i], results[i] = s.putStart(&items[i], pending[i])
	}
	s.inflight.Add(1)
	defer s.inflight.Done()
	s.mu.Unlock()

	if !s.opts.MetadataOnly {
		for i, o := range pending {
			if o != nil {
				copy(o.data, items[i].Value)
			}
		}
	}

	s.mu.Lock()
	now := s.nowNanos()
	for i, o := range pending {
		if o != nil {
			s.putEnd(o, &items[i].Options, now)
		}
	}
	s.mu.Unlock()
	return nil
}

// newObjects validates the items and allocates an object for each valid
// one (nil for the others) before the index lock is taken, so that the
// lock is held only for the index and the allocator. With inPlace (Reserve)
// an item needs no Value: the caller writes its bytes in place.
func (s *Store) newObjects(items []pool.PutItem, inPlace bool) []*object {
	objs := make([]*object, len(items))
	for i := range items {
		it := &items[i]
		if s.validatePut(it, inPlace) == pool.OK {
			n := it.SizeOf()
			objs[i] = &object{key: it.Key, size: n, alloc: alignUp(n)}
		}
	}
	return objs
}

// putStart places o, the object newObjects made for it (nil when it is
// invalid), which stays invisible until putEnd; the caller holds s.mu.
func (s *Store) putStart(it *pool.PutItem, o *object) (*object, pool.Code) {
	if o == nil {
		return nil, pool.InvalidParams // newObjects refused it
	}
	if _, ok := s.objects[it.Key]; ok {
		s.count.PutsExisting++
		return nil, pool.ObjectAlreadyExists
	}
	seg, off, ok := s.allocate(o.alloc)
	if !ok {
		s.count.AllocationFailure++
		s.needEviction.Store(true)
		return nil, pool.NoAvailableHandle
	}
	o.seg, o.off, o.data = seg, off, s.segs[seg].bytes(off, o.size)
	s.objects[it.Key] = o
	return o, pool.OK
}

// validatePut checks an item's key, size and soft pin TTL and, unless
// inPlace, that it carries its bytes (outside metadata-only mode).
func (s *Store) validatePut(it *pool.PutItem, inPlace bool) pool.Code {
	n := it.SizeOf()
	switch {
	case it.Key == "" || len(it.Key) > MaxKeyLen:
		return pool.InvalidParams
	case n <= 0 || alignUp(n) > s.maxAlloc:
		return pool.InvalidParams
	case it.Value == nil && !s.opts.MetadataOnly && !inPlace:
		return pool.InvalidParams
	case it.Options.SoftPin == pool.SoftPinEnable && (it.Options.SoftPinTTL < 0 || it.Options.SoftPinTTL > s.opts.MaxSoftPinTTL):
		return pool.InvalidParams
	}
	return pool.OK
}

// allocate places n bytes on the first segment with room, round-robin from
// the one after the last placement; the caller holds s.mu.
func (s *Store) allocate(n int64) (seg int, off int64, ok bool) {
	for i := range s.segs {
		k := (s.nextSeg + i) % len(s.segs)
		if off, ok := s.segs[k].alloc(n); ok {
			s.nextSeg = (k + 1) % len(s.segs)
			s.used.Add(n)
			return k, off, true
		}
	}
	return 0, 0, false
}

// putEnd publishes o: its lease deadline is the publish time (no lease) and
// a soft pin runs from now; the caller holds s.mu.
func (s *Store) putEnd(o *object, opts *pool.PutOptions, now int64) {
	s.seq++
	o.seq = s.seq
	o.published = true
	o.publishedAt = now
	o.lease.Store(now)
	o.hardPin = opts.HardPin
	if opts.SoftPin == pool.SoftPinEnable {
		ttl := opts.SoftPinTTL
		if ttl == 0 {
			ttl = s.opts.SoftPinTTL
		}
		o.softPinUntil = now + int64(ttl)
	}
	if opts.GroupID != "" {
		s.join(o, opts.GroupID)
	}
	s.published++
}

// join adds o to eviction group id; the caller holds s.mu.
func (s *Store) join(o *object, id string) {
	g := s.groups[id]
	if g == nil {
		g = &group{id: id}
		s.groups[id] = g
	}
	o.group, o.groupIdx = g, len(g.members)
	g.members = append(g.members, o)
}

// leave takes o out of its group; the caller holds s.mu.
func (s *Store) leave(o *object) {
	g := o.group
	if g == nil {
		return
	}
	last := g.members[len(g.members)-1]
	g.members[o.groupIdx] = last
	last.groupIdx = o.groupIdx
	g.members = g.members[:len(g.members)-1]
	if len(g.members) == 0 {
		delete(s.groups, g.id)
	}
	o.group = nil
}
