package mem

import (
	"context"

	"github.com/kvctl/kvctl/internal/streamcopy"
	"github.com/kvctl/kvctl/pool"
)

// Put stores each item whose key is absent. It validates the items and
// makes their objects without the lock; under the structure lock held
// shared it claims their keys in the index and places the new ones, the
// call's values back to back (PutStart); it copies the bytes without the
// lock and publishes the objects under the shared lock again (PutEnd). Per
// item: OK, ObjectAlreadyExists (a no-op; the first writer's bytes stay),
// InvalidParams (empty or too long key, empty value, nil Value outside
// metadata-only mode, a value larger than a segment, a bad soft pin TTL) or
// NoAvailableHandle (no room for its size rounded up to its bin; the next
// eviction step runs even below the watermark, unless EvictionRatio is 0).
func (s *Store) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	sc := getPutScratch(len(items))
	defer putPutScratch(sc)
	pending := s.makeObjects(sc.pending, items, false)
	s.tendIndex(len(items))
	s.mu.RLock()
	if err := s.begin(ctx, "put", len(items), len(results)); err != nil {
		s.mu.RUnlock()
		return err
	}
	placed := s.putStart(pending, results, sc.fresh)
	s.inflight.Add(1)
	defer s.inflight.Done()
	s.mu.RUnlock()

	if !s.opts.MetadataOnly {
		var c streamcopy.Copier // values are seldom read again soon
		for i, o := range pending {
			if o != nil {
				c.Copy(o.bytes(), items[i].Value)
			}
		}
		c.Finish()
	}

	s.mu.RLock()
	now, seq := s.nowNanos(), s.seqRange(placed)
	for i, o := range pending {
		if o != nil {
			s.putEnd(o, &items[i].Options, now, seq)
			seq++
		}
	}
	s.published.Add(int64(placed))
	s.mu.RUnlock()
	return nil
}

// slabObjects is how many objects share an allocation at most.
const slabObjects = 256

// newObjects validates the items and makes an object for each valid one
// (nil for the others) before the index lock is taken: makeObjects into a
// list of its own.
func (s *Store) newObjects(items []pool.PutItem, inPlace bool) []*object {
	return s.makeObjects(make([]*object, len(items)), items, inPlace)
}

// makeObjects is newObjects into objs, len(items) long and all nil. The
// objects come from slabs the calls share (slabs), up to slabObjects at a
// time, and the keys of up to slabObjects take one or two runs of such
// slabs' bytes (keySlab), which live until the last of them is dropped: far
// fewer allocations than one per value, for a bounded amount of memory
// kept by an object that outlives its neighbours. With inPlace (Reserve)
// an item needs no Value: the caller writes its bytes in place.
func (s *Store) makeObjects(objs []*object, items []pool.PutItem, inPlace bool) []*object {
	var slab []object
	var keys keySlab
	for i := range items {
		it := &items[i]
		if s.validatePut(it, inPlace) != pool.OK {
			continue
		}
		if len(slab) == 0 {
			slab = s.objs.take(min(len(items)-i, slabObjects))
			keys = keySlab{left: len(slab), from: s.keyMem}
		}
		o := &slab[0]
		slab = slab[1:]
		o.key, o.size, o.seg = s.keys.storeKey(it.Key, &keys), it.SizeOf(), -1
		objs[i] = o
	}
	return objs
}

// putStart claims the keys of objs, the objects newObjects made (nil for
// invalid items), in call order (claimRun), and places the objects whose keys were
// absent; they stay invisible until putEnd. It writes each item's code,
// sets the objects that are not OK to nil and returns how many are OK. The
// caller holds s.mu shared; fresh is an empty list with room for objs.
func (s *Store) putStart(objs []*object, codes []pool.Code, fresh []*object) int {
	var existing int64
	for start := 0; start < len(objs); start += lookupRun {
		end := min(start+lookupRun, len(objs))
		var n int64
		fresh, n = s.claimRun(objs[start:end], codes[start:end], fresh)
		existing += n
	}
	if existing > 0 {
		s.count.PutsExisting.Add(existing)
	}
	placed := s.placeAll(fresh)
	if placed == len(fresh) {
		return placed
	}
	for i, o := range objs {
		if o != nil && o.seg < 0 {
			s.unindex(o)
			codes[i], objs[i] = pool.NoAvailableHandle, nil
		}
	}
	s.count.AllocationFailure.Add(int64(len(fresh) - placed))
	s.flagEviction()
	return placed
}

// flagEviction asks the next eviction step to run after an allocation
// failed. The master's PutStart sets need_mem_eviction_ only when at least
// replica_num memory segments are mounted (master_service.cpp, PutStart),
// always true here (one replica, at least one segment), and its
// EvictionThreadFunc acts on it only when eviction_ratio > 0: with ratio 0
// only the watermark triggers eviction, so the flag is not set.
func (s *Store) flagEviction() {
	if s.opts.EvictionRatio > 0 {
		s.needEviction.Store(true)
	}
}

// validatePut checks an item's key, size and soft pin TTL and, unless
// inPlace, that it carries its bytes (outside metadata-only mode).
func (s *Store) validatePut(it *pool.PutItem, inPlace bool) pool.Code {
	n := it.SizeOf()
	switch {
	case it.Key == "" || len(it.Key) > MaxKeyLen:
		return pool.InvalidParams
	case n <= 0 || n > s.maxAlloc:
		return pool.InvalidParams
	case it.Value == nil && !s.opts.MetadataOnly && !inPlace:
		return pool.InvalidParams
	case it.Options.SoftPin == pool.SoftPinEnable && (it.Options.SoftPinTTL < 0 || it.Options.SoftPinTTL > s.opts.MaxSoftPinTTL):
		return pool.InvalidParams
	}
	return pool.OK
}

// seqRange takes n publish sequence numbers and returns the first.
func (s *Store) seqRange(n int) uint64 { return s.seq.Add(uint64(n)) - uint64(n) + 1 }

// putEnd publishes o as number seq: its lease deadline is the publish time
// (no lease) and a soft pin runs from now. The caller holds s.mu shared
// and counts o in s.published.
func (s *Store) putEnd(o *object, opts *pool.PutOptions, now int64, seq uint64) {
	o.seq = seq
	o.publishedAt = now
	o.lease.Store(now)
	if opts.HardPin {
		o.set(flagHardPin)
	}
	if opts.SoftPin == pool.SoftPinEnable {
		ttl := opts.SoftPinTTL
		if ttl == 0 {
			ttl = s.opts.SoftPinTTL
		}
		o.extras().softPinUntil = now + int64(ttl)
		s.softPins.Store(true)
	}
	if opts.GroupID != "" {
		s.join(o, opts.GroupID)
	}
	o.set(flagPublished)
}

// join adds o to eviction group id.
func (s *Store) join(o *object, id string) {
	s.groupsMu.Lock()
	defer s.groupsMu.Unlock()
	g := s.groups[id]
	if g == nil {
		g = &group{id: id}
		s.groups[id] = g
	}
	x := o.extras()
	x.group, x.groupIdx = g, len(g.members)
	g.members = append(g.members, o)
	g.needsLease = true
}

// leave takes o out of its group; the caller holds s.mu exclusively.
func (s *Store) leave(o *object) {
	g := o.group()
	if g == nil {
		return
	}
	s.groupsMu.Lock()
	defer s.groupsMu.Unlock()
	last := g.members[len(g.members)-1]
	g.members[o.extra.groupIdx] = last
	last.extra.groupIdx = o.extra.groupIdx
	g.members = g.members[:len(g.members)-1]
	if len(g.members) == 0 {
		delete(s.groups, g.id)
	}
	o.extra.group = nil
}
