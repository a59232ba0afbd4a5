// Package stdhash is libstdc++'s std::hash<std::string> on 64-bit targets:
// _Hash_bytes(data, len, 0xc70f6907), defined in libstdc++'s
// libsupc++/hash_bytes.cc (the size_t == 8 branch, a variant of
// MurmurHash64A). The Mooncake master shards its metadata by it
// (getShardIndex in mooncake-store/include/master_service.h:
// std::hash<std::string>{}(key) % kNumShards), so kvctl's embedded pool
// needs it to order leases as the master does.
package stdhash

import "encoding/binary"

// Seed is the seed std::hash<std::string> passes to _Hash_bytes.
const Seed = 0xc70f6907

// mul is _Hash_bytes' multiplier: 0xc6a4a793 in the high word, 0x5bd1e995
// in the low one.
const mul uint64 = 0xc6a4a793<<32 | 0x5bd1e995

// String is std::hash<std::string>{}(s) with libstdc++ on a 64-bit target.
func String(s string) uint64 { return Bytes(s, Seed) }

// Bytes is _Hash_bytes(s, len(s), seed): whole 8-byte words are read
// little-endian, each mixed as shift_mix(w*mul)*mul and folded into the
// hash (hash ^= w; hash *= mul); the trailing 1 to 7 bytes form one
// little-endian word folded in without the pre-mix; the result is
// shift_mix(shift_mix(hash)*mul), where shift_mix(v) = v ^ (v >> 47).
func Bytes[T string | []byte](s T, seed uint64) uint64 {
	n := len(s)
	h := seed ^ (uint64(n) * mul)
	whole := n &^ 7
	for i := 0; i < whole; i += 8 {
		w := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		h ^= shiftMix(w*mul) * mul
		h *= mul
	}
	if n > whole {
		var w uint64
		for i := n - 1; i >= whole; i-- {
			w = w<<8 | uint64(s[i])
		}
		h ^= w
		h *= mul
	}
	return shiftMix(shiftMix(h) * mul)
}

func shiftMix(v uint64) uint64 { return v ^ v>>47 }
