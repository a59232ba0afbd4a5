package keys

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/fxamacker/cbor/v2"
	"github.com/zeebo/xxh3"
)

// HashAlgo is vLLM's --prefix-caching-hash-algo (vllm utils/hashing.py),
// which LMCache also hashes with.
type HashAlgo string

// The hash functions (vllm utils/hashing.py: sha256, sha256_cbor, xxhash,
// xxhash_cbor).
const (
	// HashSHA256 is SHA-256 of pickle.dumps(x, protocol=5), vLLM's
	// default since v0.10.2.
	HashSHA256 HashAlgo = "sha256"
	// HashSHA256CBOR is SHA-256 of canonical CBOR (RFC 8949 core
	// deterministic).
	HashSHA256CBOR HashAlgo = "sha256_cbor"
	// HashXXHash is XXH3-128 of the pickle.
	HashXXHash HashAlgo = "xxhash"
	// HashXXHashCBOR is XXH3-128 of the canonical CBOR.
	HashXXHashCBOR HashAlgo = "xxhash_cbor"
)

// HashAlgos lists the hash functions, the default first.
var HashAlgos = []HashAlgo{HashSHA256, HashSHA256CBOR, HashXXHash, HashXXHashCBOR}

// ParseHashAlgo returns the hash function named s.
func ParseHashAlgo(s string) (HashAlgo, error) {
	for _, a := range HashAlgos {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown hash algo %q (want sha256, sha256_cbor, xxhash or xxhash_cbor)", s)
}

// hashAlgo returns o.HashAlgo, HashSHA256 when it is empty.
func (o EngineOptions) hashAlgo() HashAlgo {
	if o.HashAlgo == "" {
		return HashSHA256
	}
	return o.HashAlgo
}

// cborMode is canonical CBOR as vLLM writes it (cbor2.dumps(x,
// canonical=True)): the core deterministic options.
var cborMode = func() cbor.EncMode {
	m, err := cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		panic(err) // unreachable: the library's own options are valid
	}
	return m
}()

// pyHasher hashes the Python values of vLLM's recipe (nil, []byte,
// string, []int64, []any as tuples) with one HashAlgo.
type pyHasher struct {
	algo HashAlgo
	buf  []byte
}

// sum returns the digest of v: 32 bytes for SHA-256, 16 for XXH3-128
// (its canonical big-endian form, as xxhash.xxh3_128_digest).
func (h *pyHasher) sum(v any) ([]byte, error) {
	var err error
	switch h.algo {
	case HashSHA256, HashXXHash:
		h.buf, err = appendPickle(h.buf[:0], v)
	case HashSHA256CBOR, HashXXHashCBOR:
		h.buf, err = cborMode.Marshal(v)
	default:
		_, err = ParseHashAlgo(string(h.algo))
	}
	if err != nil {
		return nil, err
	}
	if h.algo == HashSHA256 || h.algo == HashSHA256CBOR {
		d := sha256.Sum256(h.buf)
		return d[:], nil
	}
	d := xxh3.Hash128(h.buf).Bytes()
	return d[:], nil
}

// vllmRoot returns NONE_HASH, the parent of block 0 (vllm
// v1/core/kv_cache_utils.py: init_none_hash): the hash of the
// PYTHONHASHSEED string. Without it vLLM hashes os.urandom(32), which no
// tool can reproduce.
func vllmRoot(h *pyHasher, seed *string) ([]byte, error) {
	if seed == nil {
		return nil, errNoHashSeed
	}
	return h.sum(*seed)
}

// vllmExtra returns the extra keys of block i (vllm
// v1/core/kv_cache_utils.py: generate_block_hash_extra_keys): the LoRA
// adapter's name on every block, the cache salt on block 0 only; nil (None)
// when there are none, never an empty tuple.
func vllmExtra(sc Scope, i int) any {
	var extra []any
	if sc.LoRAName != "" {
		extra = append(extra, sc.LoRAName)
	}
	if i == 0 && sc.CacheSalt != "" {
		extra = append(extra, sc.CacheSalt)
	}
	if extra == nil {
		return nil
	}
	return extra
}

// vllmBlocks hashes the full blocks of T tokens of a prompt (vllm
// v1/core/kv_cache_utils.py: hash_block_tokens):
//
//	h[i] = H((h[i-1], tuple(tokens of block i), extra_keys(i))),  h[-1] = NONE_HASH
func vllmBlocks(o EngineOptions, sc Scope, T int, tokens []int64) ([]EngineBlock, error) {
	h := &pyHasher{algo: o.hashAlgo()}
	parent, err := vllmRoot(h, o.HashSeed)
	if err != nil {
		return nil, err
	}
	out := make([]EngineBlock, 0, len(tokens)/T)
	for i := 0; (i+1)*T <= len(tokens); i++ {
		d, err := h.sum([]any{parent, tokens[i*T : (i+1)*T], vllmExtra(sc, i)})
		if err != nil {
			return nil, err
		}
		out = append(out, digestBlock(i*T, (i+1)*T, d))
		parent = d
	}
	return out, nil
}

// digestBlock is a block whose hash is a digest, with its low 64 bits (the
// last 8 bytes, big-endian) as the KV events' integer.
func digestBlock(start, end int, d []byte) EngineBlock {
	low := binary.BigEndian.Uint64(d[len(d)-8:])
	return EngineBlock{Start: start, End: end, Hash: hex.EncodeToString(d), EventHash: strconv.FormatUint(low, 10)}
}
