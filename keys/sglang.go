package keys

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
)

// sglangBlocks hashes a prompt's full pages of T tokens as SGLang's HiCache
// does (sglang srt/mem_cache/hicache_storage.py: get_hash_str), with no
// seed, LoRA or salt:
//
//	h[0] = sha256(u32le(tokens of page 0))
//	h[i] = sha256(bytes.fromhex(h[i-1]) ‖ u32le(tokens of page i))
//
// With eagle, pages are of T token pairs (t[j], t[j+1]), both hashed: the
// bigram keys of EAGLE's radix cache, one fewer than the tokens.
func sglangBlocks(eagle bool, T int, tokens []int64) ([]EngineBlock, error) {
	for i, t := range tokens {
		if t < 0 || t > math.MaxUint32 {
			return nil, fmt.Errorf("token %d (%d) is outside 0..%d: SGLang hashes tokens as unsigned 32-bit integers", i, t, uint32(math.MaxUint32))
		}
	}
	units := len(tokens) // tokens, or token pairs with eagle
	if eagle {
		units = max(0, len(tokens)-1)
	}
	out := make([]EngineBlock, 0, units/T)
	var parent []byte
	buf := make([]byte, 0, 8*T)
	for i := 0; (i+1)*T <= units; i++ {
		buf = append(buf[:0], parent...)
		for j := i * T; j < (i+1)*T; j++ {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(tokens[j]))
			if eagle {
				buf = binary.LittleEndian.AppendUint32(buf, uint32(tokens[j+1]))
			}
		}
		d := sha256.Sum256(buf)
		parent = d[:]
		out = append(out, sglangBlock(i*T, (i+1)*T, d[:]))
	}
	return out, nil
}

// sglangBlock is a page with its KV events' integer: the first 16 hex
// digits of the hash, read as a signed int64.
func sglangBlock(start, end int, d []byte) EngineBlock {
	event := int64(binary.BigEndian.Uint64(d[:8]))
	return EngineBlock{Start: start, End: end, Hash: hex.EncodeToString(d), EventHash: strconv.FormatInt(event, 10)}
}
