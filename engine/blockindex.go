package engine

import (
	"encoding/binary"

	"github.com/kvctl/kvctl/keys"
)

// blockIndex maps the chain hash of each cached block to its radix node:
// an open-addressing table of KV block numbers, probed linearly from the
// slot the hash's first bytes pick (chain hashes are BLAKE2b digests, so
// those bytes are uniform), at most half full. It holds a few bytes per KV
// block, so that it stays in cache where a Go map of 16-byte keys would
// not, and it deletes by shifting back the entries behind, leaving no
// tombstones.
type blockIndex struct {
	slots []int32 // KV block + 1; 0 is an empty slot
	mask  uint64
	n     int
	nodes []radixNode // the tree's nodes, by KV block
}

func newBlockIndex(nodes []radixNode) blockIndex {
	size := 16
	for size < 2*len(nodes) {
		size *= 2
	}
	return blockIndex{slots: make([]int32, size), mask: uint64(size - 1), nodes: nodes}
}

func (x *blockIndex) home(h *keys.Hash) uint64 { return binary.LittleEndian.Uint64(h[:8]) & x.mask }

// slot finds the slot holding hash h, or the empty slot where it would go.
func (x *blockIndex) slot(h *keys.Hash) (i uint64, found bool) {
	for i = x.home(h); x.slots[i] != 0; i = (i + 1) & x.mask {
		if x.nodes[x.slots[i]-1].hash == *h {
			return i, true
		}
	}
	return i, false
}

// lookup returns the node cached under h, or nil.
func (x *blockIndex) lookup(h keys.Hash) *radixNode {
	i, ok := x.slot(&h)
	if !ok {
		return nil
	}
	return &x.nodes[x.slots[i]-1]
}

// add indexes n, whose hash is not indexed yet.
func (x *blockIndex) add(n *radixNode) {
	i, _ := x.slot(&n.hash)
	x.slots[i] = n.block + 1
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
			if k := x.home(&x.nodes[x.slots[j]-1].hash); !cyclicBetween(i, k, j) {
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
