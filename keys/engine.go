package keys

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Engine names the inference engine whose block hashes and pool keys are
// computed. TensorRT-LLM's are the package's first (Chain, BlockKeys);
// the others share the same Mooncake pools and name blocks their own way
// (spec/engine-keys.md, docs/keys.md "Engines").
type Engine string

// The engines.
const (
	// EngineTRTLLM is TensorRT-LLM's Mooncake-store connector: Chain and
	// the seed schemes.
	EngineTRTLLM Engine = "trtllm"
	// EngineVLLM is vLLM's prefix-cache block hash and its
	// MooncakeStoreConnector's keys.
	EngineVLLM Engine = "vllm"
	// EngineSGLang is SGLang's HiCache page hash and its Mooncake keys.
	EngineSGLang Engine = "sglang"
	// EngineLMCache is LMCache's chunk hash with a vLLM hash function.
	EngineLMCache Engine = "lmcache"
	// EngineDynamo is Dynamo's KV-router block and sequence hashes.
	EngineDynamo Engine = "dynamo"
)

// Engines lists the engines, the default first.
var Engines = []Engine{EngineTRTLLM, EngineVLLM, EngineSGLang, EngineLMCache, EngineDynamo}

// ParseEngine returns the engine named s.
func ParseEngine(s string) (Engine, error) {
	for _, e := range Engines {
		if string(e) == s {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown engine %q (want trtllm, vllm, sglang, lmcache or dynamo)", s)
}

// EngineBlock is one block (page, chunk) of a prompt as an engine other
// than TensorRT-LLM hashes it.
type EngineBlock struct {
	// Start and End bound the block's tokens; a block is shorter than
	// the block size only as LMCache's last chunk.
	Start, End int
	// Hash is the block's hash as the engine spells it: a lowercase hex
	// digest, or Dynamo's sequence hash as a decimal u64.
	Hash string
	// EventHash is the integer form the engine's KV events carry, in
	// decimal: the low 64 bits of a vLLM or LMCache digest (unsigned),
	// SGLang's first 16 hex digits as an int64, Dynamo's sequence hash.
	EventHash string
	// LocalHash is Dynamo's hash of the block's own tokens (its "block
	// hash"); empty for the other engines.
	LocalHash string
}

// EngineOptions are the options of the engines other than TensorRT-LLM,
// each read only by the engines it names.
type EngineOptions struct {
	// Version is the engine's release line whose keys these are
	// (EngineVersions); empty means the engine's current one.
	Version EngineVersion
	// HashAlgo is vLLM's --prefix-caching-hash-algo, also LMCache's hash
	// function; empty means HashSHA256, vLLM's default.
	HashAlgo HashAlgo
	// HashSeed is the server's PYTHONHASHSEED (vLLM, LMCache); nil is
	// unset, which is refused: vLLM then seeds with random bytes.
	HashSeed *string
	// ChunkSize is LMCache's chunk_size (0: DefaultChunkSize), or the
	// block_size of vLLM's MooncakeStoreConnector, a multiple of the hash
	// block size T whose chunks are keyed by their last block's digest
	// (0: T, one key per hash block).
	ChunkSize int
	// Eagle hashes SGLang pages of token pairs (EAGLE's bigram keys).
	Eagle bool
	// SequenceSeed is the seed of Dynamo's sequence hash; nil means
	// the seed of Version (DynamoSequenceSeed, the router's, by default).
	SequenceSeed *uint64
	// MLA spells the pool keys of an MLA model (vLLM, SGLang).
	MLA bool
	// KVHeads is the model's number of KV heads, which sets vLLM's TP
	// replication factor; 0 means as many as the TP size.
	KVHeads int
	// PPRank, PCPRank, DCPRank and Group are spelled in vLLM's keys
	// (PPRank also in SGLang's, with PPSize > 1).
	PPRank, PCPRank, DCPRank, Group int
	// PPSize is the pipeline-parallel size (0 or 1: none): spelled in
	// SGLang's keys; a vLLM lookup asks for every pp rank's key.
	PPSize int
	// DType is spelled in LMCache keys; empty means "bfloat16".
	DType string
}

// ErrRefused is wrapped by the errors of inputs kvctl does not reproduce
// for an engine, each naming the upstream reason.
var ErrRefused = errors.New("not reproducible")

// errNoHashSeed refuses vLLM and LMCache keys without the hash seed.
var errNoHashSeed = fmt.Errorf("%w: without PYTHONHASHSEED vLLM seeds its block hashes with 32 random bytes (init_none_hash): give the server's hash seed", ErrRefused)

// checkEngineScope refuses what an engine's recipe cannot key: multimodal
// items (every engine), a LoRA task id (TensorRT-LLM's, the others key the
// adapter's name) and text that is not UTF-8.
func checkEngineScope(e Engine, sc Scope) error {
	if len(sc.Multimodal) > 0 {
		return fmt.Errorf("%w: %s keys multimodal items by hashes of the processed inputs, whose shape in the block key differs between versions: kvctl keys text prompts only", ErrRefused, e)
	}
	if sc.LoRATaskID != nil {
		return fmt.Errorf("%s keys a LoRA adapter by its name, not a task id: give the lora name", e)
	}
	for _, s := range []string{sc.CacheSalt, sc.LoRAName} {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%q is not UTF-8, as Python strings are", s)
		}
	}
	return nil
}

// EngineBlocks returns the blocks of a prompt under s.Engine (not
// TensorRT-LLM, whose blocks are Chain's) and scope.
func (s Settings) EngineBlocks(scope Scope, tokens []int64) ([]EngineBlock, error) {
	if err := s.validateEngine(); err != nil {
		return nil, err
	}
	T := s.Layout.TokensPerBlock
	if err := checkRange(SettingTokensPerBlock, int64(T), 1, MaxTokensPerBlock); err != nil {
		return nil, err
	}
	if err := checkEngineScope(s.Engine, scope); err != nil {
		return nil, err
	}
	switch s.Engine {
	case EngineVLLM:
		blocks, err := vllmBlocks(s.Engines, scope, T, tokens)
		return vllmChunks(blocks, s.BlockTokens()/T), err
	case EngineLMCache:
		return lmcacheBlocks(s.Engines, tokens)
	case EngineSGLang:
		return sglangBlocks(s.Engines.Eagle, T, tokens)
	case EngineDynamo:
		return dynamoBlocks(s.Engines, scope, T, tokens)
	}
	return nil, fmt.Errorf("engine %q has no block hashes here", s.Engine)
}

// validateEngine checks the options of s.Engine: a known engine, no
// prompt lookahead or seed scheme outside TensorRT-LLM, a known hash
// function and a hash seed for vLLM and LMCache, and ranges.
func (s Settings) validateEngine() error {
	if s.Engine == "" || s.Engine == EngineTRTLLM {
		_, err := LookupEngineVersion(s.Engine, s.Engines.Version)
		return err
	}
	if _, err := ParseEngine(string(s.Engine)); err != nil {
		return err
	}
	if s.Lookahead != 0 {
		return fmt.Errorf("prompt lookahead is TensorRT-LLM's: %s has none", s.Engine)
	}
	if s.Scheme != "" && s.Scheme != SchemeTRTLLM {
		return fmt.Errorf("seed scheme %s is TensorRT-LLM's: %s has none", s.Scheme, s.Engine)
	}
	if err := s.validateVersion(); err != nil {
		return err
	}
	o := s.Engines
	if s.Engine == EngineVLLM && s.Layout.TokensPerBlock > 0 && o.ChunkSize%s.Layout.TokensPerBlock != 0 {
		return fmt.Errorf("vllm chunk size %d is not a multiple of the %d tokens per hash block", o.ChunkSize, s.Layout.TokensPerBlock)
	}
	if s.Engine == EngineVLLM || s.Engine == EngineLMCache {
		if _, err := ParseHashAlgo(string(o.hashAlgo())); err != nil {
			return err
		}
		if o.HashSeed == nil {
			return errNoHashSeed
		}
	}
	return o.validateRanges()
}

// validateRanges checks the numbers of the engine options.
func (o EngineOptions) validateRanges() error {
	checks := []struct {
		name     string
		got, max int
	}{
		{"chunk size", o.ChunkSize, MaxTokensPerBlock}, {"kv heads", o.KVHeads, MaxWorld},
		{"pp rank", o.PPRank, MaxWorld}, {"pp size", o.PPSize, MaxWorld},
		{"pcp rank", o.PCPRank, MaxWorld}, {"dcp rank", o.DCPRank, MaxWorld},
		{"kv cache group", o.Group, MaxWorld},
	}
	for _, c := range checks {
		if err := checkRange(c.name, int64(c.got), 0, int64(c.max)); err != nil {
			return err
		}
	}
	if o.PPSize > 1 && o.PPRank >= o.PPSize {
		return fmt.Errorf("pp rank %d is outside pp size %d", o.PPRank, o.PPSize)
	}
	return nil
}
