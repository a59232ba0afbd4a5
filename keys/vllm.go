package keys

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"

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

// pyHasher hashes the Python values of vLLM's recipe (nil, []byte,
// string, []int64, []any as tuples) with one HashAlgo, encoding them
// with appendPickle or appendCBOR.
type pyHasher struct {
	algo HashAlgo
	buf  []byte
	out  [32]byte // the last digest
}

// sum returns the digest of v (sumEncoded).
func (h *pyHasher) sum(v any) ([]byte, error) {
	var err error
	if h.algo.isCBOR() {
		h.buf, err = appendCBOR(h.buf[:0], v)
	} else {
		h.buf, err = appendPickle(h.buf[:0], v)
	}
	if err != nil {
		return nil, err
	}
	return h.sumEncoded(), nil
}

// sumBlock returns the digest of vLLM's block tuple (parent,
// tuple(tokens), extra) (sumEncoded).
func (h *pyHasher) sumBlock(parent []byte, tokens []int64, extra any) ([]byte, error) {
	var err error
	if h.algo.isCBOR() {
		h.buf, err = appendCBORBlock(h.buf[:0], parent, tokens, extra)
	} else {
		h.buf, err = appendPickleBlock(h.buf[:0], parent, tokens, extra)
	}
	if err != nil {
		return nil, err
	}
	return h.sumEncoded(), nil
}

// isCBOR reports whether a hashes canonical CBOR rather than the pickle.
func (a HashAlgo) isCBOR() bool { return a == HashSHA256CBOR || a == HashXXHashCBOR }

// sumEncoded returns the digest of h.buf: 32 bytes for SHA-256, 16 for
// XXH3-128 (its canonical big-endian form, as xxhash.xxh3_128_digest).
// The digest is valid until the next sum.
func (h *pyHasher) sumEncoded() []byte {
	switch h.algo {
	case HashSHA256, HashSHA256CBOR:
		h.out = sha256.Sum256(h.buf)
		return h.out[:]
	}
	d := xxh3.Hash128(h.buf).Bytes()
	return h.out[:copy(h.out[:], d[:])]
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
	root, err := vllmRoot(h, o.HashSeed)
	if err != nil {
		return nil, err
	}
	var parentBuf [32]byte
	parent := append(parentBuf[:0], root...)
	out := make([]EngineBlock, 0, len(tokens)/T)
	for i := 0; (i+1)*T <= len(tokens); i++ {
		d, err := h.sumBlock(parent, tokens[i*T:(i+1)*T], vllmExtra(sc, i))
		if err != nil {
			return nil, err
		}
		out = append(out, digestBlock(i*T, (i+1)*T, d))
		parent = append(parent[:0], d...)
	}
	return out, nil
}

// vllmChunks keys the full chunks of n hash blocks each as vLLM's
// MooncakeStoreConnector does (vllm distributed/kv_transfer/kv_connector/
// v1/mooncake/store/data.py: chunk_hashes_for_block_size,
// ChunkedTokenDatabase.process_tokens): the hashes chain, so the digest of
// a chunk's last block names the whole chunk and its prefix. A trailing
// partial chunk is left out: the connector saves full chunks only
// (ReqMeta.from_request_tracker), so a lookup of it never hits.
func vllmChunks(blocks []EngineBlock, n int) []EngineBlock {
	if n <= 1 {
		return blocks
	}
	out := make([]EngineBlock, 0, len(blocks)/n)
	for i := n - 1; i < len(blocks); i += n {
		b := blocks[i]
		b.Start = blocks[i-n+1].Start
		out = append(out, b)
	}
	return out
}

// digestBlock is a block whose hash is a digest, with its low 64 bits (the
// last 8 bytes, big-endian) as the KV events' integer. Both strings share
// one allocation.
func digestBlock(start, end int, d []byte) EngineBlock {
	var buf [2*32 + 20]byte
	n := hex.Encode(buf[:], d)
	both := string(strconv.AppendUint(buf[:n], binary.BigEndian.Uint64(d[len(d)-8:]), 10))
	return EngineBlock{Start: start, End: end, Hash: both[:n], EventHash: both[n:]}
}
