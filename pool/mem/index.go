package mem

// Locking. The index is one table from key to object, published or not
// (keyindex.go): its lookups take no lock and its changes lock one stripe
// of its table. Store.mu is the structure lock:
//
//   - The per-key calls (Put, Reserve, Reservation.Commit and Abort, View,
//     ViewBatch, Get, Exist, ExistLeasing, Sizes) hold it shared for their
//     index work. They change the index only to claim a key for a put and
//     to take out a claimed object that is not published (an Abort's or a
//     failed put's), and they take one segment lock at a time around each
//     allocator call. Publishing leaves the index alone: an object is
//     published by storing its atomic published flag after its other
//     fields.
//   - The whole-store operations (Remove, the eviction step, Stat, List,
//     Snapshot, Close, the index's growth, and load, which runs before the
//     store is shared) hold it exclusively, which keeps every per-key call
//     out, so nothing changes the index while they read it, and they
//     delete published objects from it with no call racing them.
//   - Releasing a view or a Get takes only a segment lock, to free an
//     object that was removed while it was being read.
//
// The order is Store.mu, then a segment's mu, then Store.groupsMu; no
// goroutine holds two segment locks. The index's stripe locks are held
// only inside its calls.

// The index is sized at open for Options.IndexKeys keys when set, else for
// one key per indexBytesPerKey of capacity, at most maxIndexPresize keys
// (512 KiB of table). It grows past that as keys arrive and never
// shrinks, so that removals and eviction do not make it resize again and
// again.
const (
	indexBytesPerKey = 1 << 20
	maxIndexPresize  = 1 << 16
)

// newIndex makes the index of a store of capacity bytes that expects
// keys keys (0: not known).
func newIndex(capacity, keys int64) *keyIndex {
	if keys <= 0 {
		keys = min(capacity/indexBytesPerKey, maxIndexPresize)
	}
	return newKeyIndex(keys)
}

// tendIndex grows the index and clears its retired objects' links, if
// need be, before a call claims up to n keys (keyIndex.tend). It takes
// s.mu exclusively: the calls that claim keys call it holding no lock,
// before they take s.mu shared.
func (s *Store) tendIndex(n int) {
	if !s.index.needsTending(n) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index.tend(n)
}

// lookup finds key's object, published or not; the caller holds s.mu.
func (s *Store) lookup(key string) *object {
	var buf [packedLen]byte
	var memo prefixMemo
	return s.index.load(s.keys.lookupKey(key, &buf, &memo))
}

// lookupPublished finds key's object if it is published; the caller holds
// s.mu.
func (s *Store) lookupPublished(key string) *object {
	if o := s.lookup(key); o != nil && o.published() {
		return o
	}
	return nil
}

// claim enters o, unpublished and unplaced, in the index unless its key is
// there already (published, being put, or claimed earlier in this call),
// and reports whether it did; the caller holds s.mu shared.
func (s *Store) claim(o *object) bool {
	return s.index.insert(o)
}

// unindex takes o out of the index if its key still maps to o; the caller
// holds s.mu shared, so lookups may be walking past o (keyIndex.remove).
func (s *Store) unindex(o *object) {
	s.index.remove(o)
}

// unindexAlone is unindex for a caller that holds s.mu exclusively, which
// keeps every lookup out (keyIndex.drop).
func (s *Store) unindexAlone(o *object) {
	s.index.drop(o)
}

// forEachObject calls fn for every object in the index, published or not;
// the caller holds s.mu exclusively, so that the index does not change
// meanwhile, and fn must not change it.
func (s *Store) forEachObject(fn func(o *object)) {
	s.index.each(fn)
}
