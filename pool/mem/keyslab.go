package mem

import "unsafe"

// keySlab is where a run of new objects' index keys are stored: packed
// keys back to back in one run of memory, other keys in another, so that
// a put of many keys makes a few allocations rather than one per key (or
// takes a few runs of the store's shared slabs, from). Each run is taken
// when a key of its form finds no room, sized for the run's keys still to
// come (as long as that key, at most slabObjects of them), and lives until
// the last key in it is dropped: a bounded amount of memory kept by a key
// that outlives its neighbours.
type keySlab struct {
	packed, plain []byte
	left          int          // the run's keys not yet stored
	from          *slabs[byte] // where the memory comes from; nil: its own allocations
	memo          prefixMemo   // the run's last prefix
}

// newKeySlab is a slab for a run of n keys.
func newKeySlab(n int) keySlab { return keySlab{left: n} }

// take returns n bytes of *buf, first allocating room for the run's keys
// still to come, n bytes each, when *buf has fewer than n left; it counts
// one key stored.
func (k *keySlab) take(buf *[]byte, n int) []byte {
	if len(*buf) < n {
		size := max(1, min(k.left, slabObjects)) * n
		if k.from != nil {
			*buf = k.from.take(size)
		} else {
			*buf = make([]byte, size)
		}
	}
	b := (*buf)[:n:n]
	*buf = (*buf)[n:]
	k.left--
	return b
}

// storeKey is key's index form for a put, in memory of the pool's own
// from slab, so that the pool keeps no caller's string: packed when it
// packs, else escaped or copied as it is.
func (p *keyPacker) storeKey(key string, slab *keySlab) string {
	var buf [packedLen]byte
	var b []byte
	switch {
	case p.pack(&buf, key, true, &slab.memo):
		b = slab.take(&slab.packed, packedLen)
		copy(b, buf[:])
	case len(key) > 0 && key[0] == 0:
		b = slab.take(&slab.plain, len(escapePrefix)+len(key))
		copy(b[copy(b, escapePrefix):], key)
	case key == "":
		slab.left--
		return ""
	default:
		b = slab.take(&slab.plain, len(key))
		copy(b, key)
	}
	return unsafe.String(&b[0], len(b))
}
