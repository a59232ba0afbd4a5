package mem

// Batched lookups. A probe of a large index is mostly a wait on memory: the
// index's table does not fit in a cache, so nearly every probe misses. One
// key at a time, the work of packing the next key fills the processor's
// window and each miss is waited for alone. A batch is therefore looked up
// lookupRun keys at a time in phases, each a short loop of independent
// steps: every key is packed (no memory waits), then every packed key is
// probed, then every object found is checked for being published, so that
// several probes' misses are in flight at once. In the whole-trace replay
// this halves the time spent in the index's lookups; keys looked up in the
// order they were put, as a transfer's pages are, gain nothing from it
// (BenchmarkLookupGiB).

// lookupRun is how many keys a phase covers: enough to keep the misses of
// a processor's window in flight, small enough for the packed keys to
// stay on the stack.
const lookupRun = 64

// lookupAllPublished writes each key's published object, or nil, into
// objs[:len(keys)]; the caller holds s.mu.
func (s *Store) lookupAllPublished(keys []string, objs []*object) {
	for start := 0; start < len(keys); start += lookupRun {
		end := min(start+lookupRun, len(keys))
		s.lookupRunPublished(keys[start:end], objs[start:end])
	}
}

// lookupRunPublished is lookupAllPublished for at most lookupRun keys.
func (s *Store) lookupRunPublished(keys []string, objs []*object) {
	var bufs [lookupRun][packedLen]byte
	var ikeys [lookupRun]string
	var memo prefixMemo
	for i, k := range keys {
		ikeys[i] = s.keys.lookupKey(k, &bufs[i], &memo)
	}
	for i := range keys {
		objs[i], _ = s.index.Load(ikeys[i])
	}
	for i, o := range objs[:len(keys)] {
		if o != nil && !o.published() {
			objs[i] = nil
		}
	}
}
