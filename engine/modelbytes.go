package engine

import (
	"bytes"
	"encoding/binary"
)

// The word stream of one region of a synthetic page (Model's doc says what
// it is): a region is cut into chunks of chunkWords words; word j of chunk
// c is wordTable[j] XOR chunkKey(seed, c). Filling a chunk is one mix and
// then an XOR and a store per word, so a page fills at about the speed of
// memory.

// chunkWords is how many 64-bit words of a region one chunk key covers
// (4 KiB).
const chunkWords = 512

// chunkBytes is the size of a chunk in bytes.
const chunkBytes = 8 * chunkWords

// wordTable is the fixed word of every position of a chunk: the
// splitmix64 stream of seed 0. Its words are distinct (mix is a
// bijection), so no two positions of a chunk hold the same word.
var wordTable = func() (t [chunkWords]uint64) {
	for j := range t {
		t[j] = mix(uint64(j+1) * golden)
	}
	return t
}()

// chunkKey is the word that chunk c of the region seeded seed XORs into
// every word of wordTable. The keys of one region are distinct.
func chunkKey(seed uint64, c int) uint64 { return mix(seed + uint64(c+1)*golden) }

// fillRegion writes the region of seed into dst (all of it).
func fillRegion(dst []byte, seed uint64) {
	for c := 0; len(dst) > 0; c++ {
		n := min(len(dst), chunkBytes)
		fillChunk(dst[:n], chunkKey(seed, c))
		dst = dst[n:]
	}
}

// equalRegion reports whether src holds exactly what fillRegion writes
// for seed.
func equalRegion(src []byte, seed uint64) bool {
	for c := 0; len(src) > 0; c++ {
		n := min(len(src), chunkBytes)
		if !equalChunk(src[:n], chunkKey(seed, c)) {
			return false
		}
		src = src[n:]
	}
	return true
}

// fillChunk writes a chunk of key k into dst (at most chunkBytes), eight
// words at a time; a tail of under 8 bytes is the first bytes of its word.
func fillChunk(dst []byte, k uint64) {
	t := wordTable[:]
	for len(dst) >= 64 {
		w := t[:8]
		binary.LittleEndian.PutUint64(dst[0:], w[0]^k)
		binary.LittleEndian.PutUint64(dst[8:], w[1]^k)
		binary.LittleEndian.PutUint64(dst[16:], w[2]^k)
		binary.LittleEndian.PutUint64(dst[24:], w[3]^k)
		binary.LittleEndian.PutUint64(dst[32:], w[4]^k)
		binary.LittleEndian.PutUint64(dst[40:], w[5]^k)
		binary.LittleEndian.PutUint64(dst[48:], w[6]^k)
		binary.LittleEndian.PutUint64(dst[56:], w[7]^k)
		dst, t = dst[64:], t[8:]
	}
	for len(dst) >= 8 {
		binary.LittleEndian.PutUint64(dst, t[0]^k)
		dst, t = dst[8:], t[1:]
	}
	if len(dst) > 0 {
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], t[0]^k)
		copy(dst, tail[:])
	}
}

// equalChunk reports whether src (at most chunkBytes) holds exactly what
// fillChunk writes for key k.
func equalChunk(src []byte, k uint64) bool {
	t := wordTable[:]
	var diff uint64
	for len(src) >= 64 {
		w := t[:8]
		diff |= (binary.LittleEndian.Uint64(src[0:]) ^ w[0] ^ k) |
			(binary.LittleEndian.Uint64(src[8:]) ^ w[1] ^ k) |
			(binary.LittleEndian.Uint64(src[16:]) ^ w[2] ^ k) |
			(binary.LittleEndian.Uint64(src[24:]) ^ w[3] ^ k) |
			(binary.LittleEndian.Uint64(src[32:]) ^ w[4] ^ k) |
			(binary.LittleEndian.Uint64(src[40:]) ^ w[5] ^ k) |
			(binary.LittleEndian.Uint64(src[48:]) ^ w[6] ^ k) |
			(binary.LittleEndian.Uint64(src[56:]) ^ w[7] ^ k)
		src, t = src[64:], t[8:]
	}
	for len(src) >= 8 {
		diff |= binary.LittleEndian.Uint64(src) ^ t[0] ^ k
		src, t = src[8:], t[1:]
	}
	if len(src) > 0 {
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], t[0]^k)
		return diff == 0 && bytes.Equal(src, tail[:len(src)])
	}
	return diff == 0
}
