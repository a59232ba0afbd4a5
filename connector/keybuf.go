package connector

import (
	"encoding/hex"
	"strings"
	"unsafe"

	"github.com/kvctl/kvctl/keys"
)

// keySpeller spells the page keys of the worker's pool calls. Everything
// in a key but the block hash is spelled once, up front. The keys of a
// lookup or a load are borrowed: they point into one buffer that the next
// call overwrites, so that a call allocates nothing. A store reads keys
// only during the call it is passed them to (a put to a store that may
// keep its keys, one that is not a pool.KeyCopier,
// gets copies: owned). After a failed call the buffer is given up
// (abandon), so that an error holding a key holds it intact.
type keySpeller struct {
	block []string // a lookup's prefixes of one block: every rank's shard
	slot  []string // the prefixes of this rank's page slots
	buf   []byte
}

func newKeySpeller(k keys.Settings, slots []PageSlot) keySpeller {
	var s keySpeller
	for _, key := range k.AppendBlockKeys(nil, keys.Hash{}) {
		s.block = append(s.block, trimHash(key))
	}
	for _, sl := range slots {
		key := k.Namespace.PageKey(sl.Shard, sl.LayerGroup, k.Layout.TokensPerBlock, keys.Hash{})
		s.slot = append(s.slot, trimHash(key))
	}
	return s
}

// trimHash is key without its hash, the last 2*keys.HashSize characters.
func trimHash(key string) string { return key[:len(key)-2*keys.HashSize] }

// start begins a call of at most n keys: the buffer is made large enough
// for them, so that borrowed keys never move.
func (s *keySpeller) start(n int) {
	longest := 0
	for _, p := range s.block {
		longest = max(longest, len(p))
	}
	need := n * (longest + 2*keys.HashSize)
	if cap(s.buf) < need {
		s.buf = make([]byte, 0, need)
	}
	s.buf = s.buf[:0]
}

// appendBlock appends the borrowed keys of every page of the block with
// hash h, in the order of keys.Settings.AppendBlockKeys.
func (s *keySpeller) appendBlock(dst []string, h keys.Hash) []string {
	for _, p := range s.block {
		dst = append(dst, s.borrow(p, h))
	}
	return dst
}

// page returns the borrowed key of page slot slot of the block with hash h.
func (s *keySpeller) page(slot int, h keys.Hash) string { return s.borrow(s.slot[slot], h) }

// owned returns the key of page slot slot of the block with hash h in an
// allocation of its own.
func (s *keySpeller) owned(slot int, h keys.Hash) string {
	var hexHash [2 * keys.HashSize]byte
	hex.Encode(hexHash[:], h[:])
	var b strings.Builder
	b.Grow(len(s.slot[slot]) + len(hexHash))
	b.WriteString(s.slot[slot])
	b.Write(hexHash[:])
	return b.String()
}

// borrow appends prefix and h in hex to the buffer and returns them as a
// string that shares the buffer's bytes.
func (s *keySpeller) borrow(prefix string, h keys.Hash) string {
	from := len(s.buf)
	s.buf = hex.AppendEncode(append(s.buf, prefix...), h[:])
	return unsafe.String(&s.buf[from], len(s.buf)-from)
}

// abandon gives up the buffer: the keys borrowed from it stay intact.
func (s *keySpeller) abandon() { s.buf = nil }
