package keys

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/zeebo/xxh3"
)

// The seeds of Dynamo's hashes (dynamo lib/kv-hashing/src/salt.rs,
// lib/kv-router/src/protocols.rs, lib/tokens/src/lib.rs).
const (
	// DynamoSaltSeed is the salt of a request with neither LoRA nor salt.
	DynamoSaltSeed = 1337
	// DynamoSequenceSeed is the sequence-hash seed of the KV router
	// (lib/kv-router) and of the older lib/tokens.
	DynamoSequenceSeed = 1337
	// DynamoSequenceSeedTokens is the sequence-hash seed of the newest
	// lib/tokens.
	DynamoSequenceSeedTokens = 0
)

// dynamoSalt returns a request's salt (lib/kv-hashing/src/salt.rs): 1337,
// plus (wrapping) xxh3_64(lora name, seed 0) with a LoRA adapter, plus
// xxh3_64(salt, seed 1) with a cache salt.
func dynamoSalt(sc Scope) uint64 {
	salt := uint64(DynamoSaltSeed)
	if sc.LoRAName != "" {
		salt += xxh3.HashStringSeed(sc.LoRAName, 0)
	}
	if sc.CacheSalt != "" {
		salt += xxh3.HashStringSeed(sc.CacheSalt, 1)
	}
	return salt
}

// sequenceSeed returns o.SequenceSeed, else the seed of o.Version
// (DynamoSequenceSeed for the router, the default).
func (o EngineOptions) sequenceSeed() uint64 {
	if o.SequenceSeed == nil {
		return dynamoVersionSeed(o.Version)
	}
	return *o.SequenceSeed
}

// dynamoBlocks hashes a prompt's full blocks of T tokens as Dynamo's KV
// router does (lib/kv-router/src/protocols.rs: compute_block_hash_for_seq,
// lib/tokens/src/lib.rs: compute_hash):
//
//	block[i] = xxh3_64(u32le(tokens of block i), seed = salt)
//	seq[0] = block[0];  seq[i] = xxh3_64(u64le(seq[i-1]) ‖ u64le(block[i]), seed = S)
//
// The sequence hash is the block's hash as Dynamo spells it; the block
// hash is its local hash.
func dynamoBlocks(o EngineOptions, sc Scope, T int, tokens []int64) ([]EngineBlock, error) {
	for i, t := range tokens {
		if t < 0 || t > math.MaxUint32 {
			return nil, fmt.Errorf("token %d (%d) is outside 0..%d: Dynamo's tokens are u32", i, t, uint32(math.MaxUint32))
		}
	}
	salt, seed := dynamoSalt(sc), o.sequenceSeed()
	out := make([]EngineBlock, 0, len(tokens)/T)
	buf := make([]byte, 0, 4*T)
	var seq uint64
	for i := 0; (i+1)*T <= len(tokens); i++ {
		buf = buf[:0]
		for _, t := range tokens[i*T : (i+1)*T] {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(t))
		}
		block := xxh3.HashSeed(buf, salt)
		if i == 0 {
			seq = block
		} else {
			pair := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(buf[:0], seq), block)
			seq = xxh3.HashSeed(pair, seed)
		}
		s := strconv.FormatUint(seq, 10)
		out = append(out, EngineBlock{Start: i * T, End: (i + 1) * T, Hash: s, EventHash: s, LocalHash: strconv.FormatUint(block, 10)})
	}
	return out, nil
}
