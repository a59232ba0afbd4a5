package engine

import (
	"encoding/binary"
	"unsafe"

	"github.com/kvctl/kvctl/internal/prefetch"
	"github.com/kvctl/kvctl/keys"
)

// blockIndex maps the chain hash of each cached block to its radix node:
// an open-addressing table of KV block numbers, probed linearly from the
// slot the hash's first bytes pick (chain hashes are BLAKE2b digests, so
// those bytes are uniform), at most half full. It holds a few bytes per KV
// block, so that it stays in cache where a Go map of 16-byte keys would
// not, and it deletes by shifting back the entries behind, leaving no
// tombstones. Each slot also keeps the hash's first four bytes (its tag),
// from which the slot's home is known: a probe reads a node only when the
// tags match, and a deletion never reads one.
type blockIndex struct {
	slots []uint64 // the tag << 32 | KV block + 1; 0 is an empty slot
	mask  uint64
	n     int
	nodes []radixNode // the tree's nodes, by KV block
}

func newBlockIndex(nodes []radixNode) blockIndex {
	size := 16
	for size < 2*len(nodes) {
		size *= 2
	}
	return blockIndex{slots: make([]uint64, size), mask: uint64(size - 1), nodes: nodes}
}

// tag is the first four bytes of h, which pick its home slot (a table has
// fewer than 2^32 slots).
func tag(h *keys.Hash) uint64 { return uint64(binary.LittleEndian.Uint32(h[:4])) }

// home is the slot that tag t picks.
func (x *blockIndex) home(t uint64) uint64 { return t & x.mask }

// node is the node of the entry in slot value v.
func (x *blockIndex) node(v uint64) *radixNode { return &x.nodes[uint32(v)-1] }

// slot finds the slot holding hash h, or the empty slot where it would go.
func (x *blockIndex) slot(h *keys.Hash) (i uint64, found bool) {
	t := tag(h)
	for i = x.home(t); x.slots[i] != 0; i = (i + 1) & x.mask {
		if v := x.slots[i]; v>>32 == t && x.node(v).hash == *h {
			return i, true
		}
	}
	return i, false
}

// prefetchHome asks for the line of h's home slot (prefetch.Line), where
// a lookup or removal of h starts.
func (x *blockIndex) prefetchHome(h *keys.Hash) {
	prefetch.Line(unsafe.Pointer(&x.slots[x.home(tag(h))]))
}

// lookup returns the node cached under h, or nil.
func (x *blockIndex) lookup(h keys.Hash) *radixNode {
	i, ok := x.slot(&h)
	if !ok {
		return nil
	}
	return x.node(x.slots[i])
}

// addAt indexes n, whose hash is not indexed yet, in slot i: the empty
// slot that slot found for its hash, with no change to the index since.
func (x *blockIndex) addAt(i uint64, n *radixNode) {
	x.slots[i] = tag(&n.hash)<<32 | uint64(n.block+1)
	x.n++
}

// remove takes n, which is indexed, out of the index.
func (x *blockIndex) remove(n *radixNode) {
	i, _ := x.slot(&n.hash)
	x.n--
	for {
		x.slots[i] = 0
		j := i
		for {
			j = (j + 1) & x.mask
			if x.slots[j] == 0 {
				return
			}
			if k := x.home(x.slots[j] >> 32); !cyclicBetween(i, k, j) {
				break // the entry at j may not stay behind the hole at i
			}
		}
		x.slots[i] = x.slots[j]
		i = j
	}
}

// cyclicBetween reports whether k lies in (i, j] going round the table.
func cyclicBetween(i, k, j uint64) bool {
	if i <= j {
		return i < k && k <= j
	}
	return i < k || k <= j
}
