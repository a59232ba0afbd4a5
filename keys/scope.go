package keys

import (
	"encoding/binary"
	"fmt"
)

// Scheme names how the seed of a chain is derived. Pools written by other
// builds of the connector use other schemes; the block chain is the same.
type Scheme string

// The seed schemes (spec/keys.md).
const (
	// SchemeTRTLLM is upstream TensorRT-LLM: the framed scope (cache salt,
	// LoRA task, multimodal items), then the prompt lookahead.
	SchemeTRTLLM Scheme = "trtllm"
	// SchemeFork is the "mooncake-kv-v2" fork: only the cache salt is in the
	// seed (LoRA and multimodal items are ignored), then the prompt lookahead.
	SchemeFork Scheme = "trtllm-fork"
	// SchemeLegacy is the first release: H("salt" ‖ salt), no lookahead.
	SchemeLegacy Scheme = "trtllm-legacy"
)

// Schemes lists the valid schemes, the default first.
var Schemes = []Scheme{SchemeTRTLLM, SchemeFork, SchemeLegacy}

// ParseScheme returns the scheme named s.
func ParseScheme(s string) (Scheme, error) {
	for _, v := range Schemes {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown key scheme %q (want trtllm, trtllm-fork or trtllm-legacy)", s)
}

// Scope is what separates the key spaces of requests with the same tokens.
type Scope struct {
	// CacheSalt is hashed as UTF-8 bytes; empty means no salt.
	CacheSalt string
	// LoRATaskID is the LoRA adapter's task id, as TensorRT-LLM keys it;
	// nil means none (0 is a task).
	LoRATaskID *int64
	// LoRAName is the LoRA adapter's name, as vLLM and Dynamo key it;
	// empty means none. TensorRT-LLM's seeds do not read it.
	LoRAName string
	// Multimodal holds one hash per multimodal item, in prompt order, each
	// as 8 int32 values.
	Multimodal [][8]int32
}

// Framed returns the framed scope encoding hashed into the seed of scheme
// trtllm: for each part, its length as uint32 little-endian, then its
// bytes. The parts are the salt, the LoRA task id (8 bytes little-endian,
// or empty when absent) and each multimodal item (8 int32 big-endian).
func (s Scope) Framed() []byte {
	n := 4 + len(s.CacheSalt) + 4 + 8 + len(s.Multimodal)*(4+32)
	b := make([]byte, 0, n)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.CacheSalt)))
	b = append(b, s.CacheSalt...)
	if s.LoRATaskID == nil {
		b = binary.LittleEndian.AppendUint32(b, 0)
	} else {
		b = binary.LittleEndian.AppendUint32(b, 8)
		b = binary.LittleEndian.AppendUint64(b, uint64(*s.LoRATaskID))
	}
	for _, item := range s.Multimodal {
		b = binary.LittleEndian.AppendUint32(b, 32)
		for _, v := range item {
			b = binary.BigEndian.AppendUint32(b, uint32(v))
		}
	}
	return b
}

const (
	lookaheadTag = "prompt-lookahead"
	forkTag      = "mooncake-kv-v2"
	legacyTag    = "salt"
)

// Seed returns the hash a request's chain starts from: the scope seed of
// the scheme, then, when lookahead > 0, H(seed ‖ "prompt-lookahead" ‖
// u64le(lookahead)). A lookahead of 0 leaves the seed unchanged. A negative
// lookahead is an error, and so is a positive one with SchemeLegacy, which
// predates prompt lookahead. SchemeFork ignores the LoRA task and the
// multimodal items, as that build does.
func Seed(scheme Scheme, scope Scope, lookahead int) (Hash, error) {
	if lookahead < 0 {
		return Hash{}, fmt.Errorf("prompt lookahead must not be negative, got %d", lookahead)
	}
	var seed Hash
	switch scheme {
	case SchemeTRTLLM:
		seed = Digest(scope.Framed())
	case SchemeFork:
		seed = Digest([]byte(forkTag), []byte(legacyTag), []byte(scope.CacheSalt))
	case SchemeLegacy:
		if lookahead > 0 {
			return Hash{}, fmt.Errorf("key scheme %s has no prompt lookahead, got lookahead %d", scheme, lookahead)
		}
		seed = Digest([]byte(legacyTag), []byte(scope.CacheSalt))
	default:
		_, err := ParseScheme(string(scheme))
		return Hash{}, err
	}
	if lookahead == 0 {
		return seed, nil
	}
	return Digest(seed[:], []byte(lookaheadTag), binary.LittleEndian.AppendUint64(nil, uint64(lookahead))), nil
}
