package mem

import (
	"fmt"
	"sync/atomic"

	"github.com/kvctl/kvctl/pool"
)

// maxPooledHold is the largest batch whose hold or scratch lists are
// recycled; larger ones are left to the garbage collector rather than
// kept alive in a recycler.
const maxPooledHold = 1 << 14

// View returns key's bytes in place, without copying, and a release func
// that must be called once the caller is done with them; until then the
// object is not evicted, and a forced removal frees its memory only at
// release. View extends the lease as Get does. On failure b is nil,
// release does nothing and code is ObjectNotFound, InvalidParams
// (metadata-only store) or RPCFail (closed store). Release is idempotent.
func (s *Store) View(key string) (b []byte, release func(), code pool.Code) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, noRelease, pool.RPCFail
	}
	o, code := s.viewable(key)
	if code != pool.OK {
		return nil, noRelease, code
	}
	o.readers.Add(1)
	var released atomic.Bool
	release = func() {
		if released.CompareAndSwap(false, true) {
			s.release(o)
		}
	}
	return o.bytes(), release, pool.OK
}

// ViewBatch looks keys up in place under one shared lock: for each i,
// views[i] is the value's bytes inside its arena and codes[i] is OK, or
// views[i] is nil and codes[i] is what View would answer (ObjectNotFound
// for an absent or unpublished key, InvalidParams for a present key of a
// metadata-only store, RPCFail for every key of a closed store). Every
// present key's lease is extended as Get does, and every viewed object is
// held as being read: it is not evicted, and a forced removal frees its
// memory only once the returned release is called. Release ends every view
// of the batch; it is idempotent and may be called from any goroutine.
// ViewBatch panics when views or codes is not as long as keys, a caller's
// bug, as an out-of-range index is. A call allocates one small closure;
// the list of held objects is recycled between calls.
func (s *Store) ViewBatch(keys []string, views [][]byte, codes []pool.Code) (release func()) {
	if len(views) != len(keys) || len(codes) != len(keys) {
		panic(fmt.Sprintf("mem pool view: %d keys but %d views and %d codes", len(keys), len(views), len(codes)))
	}
	h := viewHolds.get()
	s.mu.RLock()
	h.objs = s.holdViews(keys, views, codes, h.objs[:0])
	s.mu.RUnlock()
	if len(h.objs) == 0 {
		viewHolds.put(h)
		return noRelease
	}
	h.s = s
	gen := h.gen.Load()
	return func() { h.release(gen) }
}

// holdViews fills views and codes and appends the viewed objects, marked
// as being read, to held; the caller holds s.mu.
func (s *Store) holdViews(keys []string, views [][]byte, codes []pool.Code, held []*object) []*object {
	if s.closed {
		clear(views)
		for i := range codes {
			codes[i] = pool.RPCFail
		}
		return held
	}
	sc := getLeaseScratch(len(keys))
	defer putLeaseScratch(sc)
	s.lookupAllPublished(keys, sc.objs)
	for i, o := range sc.objs {
		codes[i] = s.viewCode(o)
		if codes[i] != pool.OK {
			views[i] = nil
			continue
		}
		o.readers.Add(1)
		views[i] = o.bytes()
		held = append(held, o)
	}
	s.grantLeases(sc.objs, sc)
	return held
}

// viewable looks key up for a view, leasing it when present; the caller
// holds s.mu shared.
func (s *Store) viewable(key string) (*object, pool.Code) {
	o := s.lookupPublished(key)
	if o == nil {
		return nil, pool.ObjectNotFound
	}
	s.grantLease(o)
	if code := s.viewCode(o); code != pool.OK {
		return nil, code
	}
	return o, pool.OK
}

// viewCode is what a view of o answers: ObjectNotFound when o is nil (an
// absent key), InvalidParams for a metadata-only store, else OK.
func (s *Store) viewCode(o *object) pool.Code {
	switch {
	case o == nil:
		return pool.ObjectNotFound
	case s.opts.MetadataOnly:
		return pool.InvalidParams
	}
	return pool.OK
}

// viewHold is the objects one ViewBatch holds as being read. Holds are
// recycled through viewHolds; gen counts the releases, so that a second
// call of an old release func finds gen moved on and does nothing.
type viewHold struct {
	s    *Store
	gen  atomic.Uint64
	objs []*object
}

var viewHolds = newRecycler[viewHold]()

func noRelease() {}

// release ends the batch's views once: only the first call for generation
// gen gets past the compare-and-swap.
func (h *viewHold) release(gen uint64) {
	if !h.gen.CompareAndSwap(gen, gen+1) {
		return
	}
	h.s.releaseAll(h.objs)
	clear(h.objs)
	h.objs, h.s = h.objs[:0], nil
	if cap(h.objs) <= maxPooledHold {
		viewHolds.put(h)
	}
}

// release ends one read of o, freeing its memory when it was removed while
// being read. It needs no index lock: removal is over once removed is set,
// and freeObject frees once under the segment's lock.
func (s *Store) release(o *object) {
	if o.readers.Add(-1) == 0 && o.removed() {
		s.freeObject(o)
	}
}

// releaseAll ends one read of each of objs.
func (s *Store) releaseAll(objs []*object) {
	for _, o := range objs {
		s.release(o)
	}
}
