package mem

// Batched lookups. A probe of a large index is mostly a wait on memory: the
// index's table does not fit in a cache, so nearly every probe misses. One
// key at a time, the work of packing the next key fills the processor's
// window and each miss is waited for alone. A batch is therefore looked up
// lookupRun keys at a time in phases, each a short loop of independent
// steps: every key is packed (no memory waits), then every packed key is
// probed (keyIndex.loadRun: every head, then every chain's first object,
// then its key, each prefetched before the next phase reads it), then every
// object found is checked for being published, so that the probes' misses
// are in flight at once. In the whole-trace replay, with a general
// concurrent map whose probes could not be split, this halved the time
// spent in the index's lookups; the table's own phases took about a tenth
// more off there, and keys looked up in the order they were put, which
// the map's probes did not overlap, from 100 to 40 ns each
// (BenchmarkLookupGiB; docs/benchmarks.md, "The index's own table").

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
	s.index.loadRun(ikeys[:len(keys)], objs)
	for i, o := range objs[:len(keys)] {
		if o != nil && !o.published() {
			objs[i] = nil
		}
	}
}
