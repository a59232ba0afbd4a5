package cmd

import (
	"fmt"
	"math"

	"github.com/kvctl/kvctl/keys"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// engineFlags choose the engine whose keys are computed and hold the
// options of the engines other than TensorRT-LLM (keys.EngineOptions).
type engineFlags struct {
	registered   bool
	Engine       string
	Version      string
	HashAlgo     string
	HashSeed     string
	LoRAName     string
	ChunkSize    int
	Eagle        bool
	SequenceSeed int64
	MLA          bool
	KVHeads      int
	PPRank       int
	PPSize       int
	PCPRank      int
	DCPRank      int
	Group        int
	DType        string
}

// register adds the engine flags (keys, holes and pool exist --tokens:
// serve runs TensorRT-LLM's connector only).
func (f *engineFlags) register(fs *pflag.FlagSet) {
	f.registered = true
	fs.StringVar(&f.Engine, "engine", "trtllm", "engine whose keys are computed: trtllm, vllm, sglang, lmcache or dynamo (docs/keys.md, Engines)")
	fs.StringVar(&f.Version, "engine-version", "", "vllm: current or pr40900; lmcache: current (fmt is refused); sglang: current; dynamo: router (seed 1337) or tokens (seed 0): the engine's release line whose keys differ (default current; docs/keys.md, Versions)")
	fs.StringVar(&f.HashAlgo, "hash-algo", "sha256", "vllm, lmcache: the server's --prefix-caching-hash-algo: sha256, sha256_cbor, xxhash or xxhash_cbor")
	fs.StringVar(&f.HashSeed, "hash-seed", "", "vllm, lmcache: the server's PYTHONHASHSEED (required: without it vLLM seeds with random bytes)")
	fs.StringVar(&f.LoRAName, "lora-name", "", "vllm, dynamo: LoRA adapter name of the request")
	fs.IntVar(&f.ChunkSize, "chunk-size", keys.DefaultChunkSize, "lmcache: chunk_size in tokens (the last, partial chunk is hashed too); vllm: the Mooncake store connector's block_size, a multiple of --tokens-per-block, each chunk keyed by its last block (default: a key per block)")
	fs.BoolVar(&f.Eagle, "eagle", false, "sglang: pages of EAGLE token pairs (the server runs EAGLE speculative decoding)")
	fs.Var(newDecimalInt64(&f.SequenceSeed, keys.DynamoSequenceSeed, 0, math.MaxInt64), "dynamo-sequence-seed", "dynamo: sequence-hash seed: 1337 (KV router, older lib/tokens) or 0 (newest lib/tokens)")
	fs.BoolVar(&f.MLA, "mla", false, "vllm, sglang: the model uses MLA (one key set for every TP rank)")
	fs.IntVar(&f.KVHeads, "kv-heads", 0, "vllm: the model's KV heads, for the TP replication factor tp/kv-heads (default: no replication)")
	fs.IntVar(&f.PPRank, "pp-rank", 0, "vllm, sglang: pipeline-parallel rank in the keys")
	fs.IntVar(&f.PPSize, "pp-size", 1, "sglang: pipeline-parallel size (above 1 the keys spell the pp rank); vllm: a probe asks for every pp rank's key")
	fs.IntVar(&f.PCPRank, "pcp-rank", 0, "vllm: prefill context-parallel rank in the keys")
	fs.IntVar(&f.DCPRank, "dcp-rank", 0, "vllm: decode context-parallel rank in the keys")
	fs.IntVar(&f.Group, "kv-cache-group", 0, "vllm: KV cache group in the keys")
	fs.StringVar(&f.DType, "dtype", keys.DefaultDType, "lmcache: KV dtype in the keys")
}

// engineOnly names the flags each engine reads, for refusing the others.
var engineOnly = map[string][]keys.Engine{
	"hash-algo": {keys.EngineVLLM, keys.EngineLMCache}, "hash-seed": {keys.EngineVLLM, keys.EngineLMCache},
	"lora-name": {keys.EngineVLLM, keys.EngineDynamo}, "chunk-size": {keys.EngineLMCache, keys.EngineVLLM},
	"engine-version": {keys.EngineVLLM, keys.EngineLMCache, keys.EngineSGLang, keys.EngineDynamo},
	"eagle":          {keys.EngineSGLang}, "dynamo-sequence-seed": {keys.EngineDynamo},
	"mla": {keys.EngineVLLM, keys.EngineSGLang}, "kv-heads": {keys.EngineVLLM},
	"pp-rank": {keys.EngineVLLM, keys.EngineSGLang}, "pp-size": {keys.EngineSGLang, keys.EngineVLLM},
	"pcp-rank": {keys.EngineVLLM}, "dcp-rank": {keys.EngineVLLM}, "kv-cache-group": {keys.EngineVLLM},
	"dtype":  {keys.EngineLMCache},
	"scheme": {keys.EngineTRTLLM}, "lookahead": {keys.EngineTRTLLM}, "lora-task-id": {keys.EngineTRTLLM},
	"mm-hash": {keys.EngineTRTLLM}, "attention-dp": {keys.EngineTRTLLM}, "group-keys": {keys.EngineTRTLLM},
	"layer-group": {keys.EngineTRTLLM}, "replicated-layer-group": {keys.EngineTRTLLM}, "llm-config": {keys.EngineTRTLLM},
}

// apply sets the engine and its options onto s, refusing a flag the
// engine does not read. Other engines' keys have no default namespace:
// --namespace is vLLM's cache prefix and SGLang's backend tag.
func (f *engineFlags) apply(c *cobra.Command, s *keys.Settings) error {
	if !f.registered {
		return nil
	}
	e, err := keys.ParseEngine(f.Engine)
	if err != nil {
		return asUsage(fmt.Errorf("--engine: %w", err))
	}
	for name, engines := range engineOnly {
		if c.Flags().Changed(name) && !hasEngine(engines, e) {
			return usagef("--%s does not apply to --engine %s", name, e)
		}
	}
	s.Engine = e
	if e == keys.EngineTRTLLM {
		return nil
	}
	if (e == keys.EngineVLLM || e == keys.EngineLMCache) && !c.Flags().Changed("hash-seed") {
		return usagef("--engine %s needs --hash-seed, the server's PYTHONHASHSEED: without it vLLM seeds its block hashes with 32 random bytes (init_none_hash) and no tool can reproduce them", e)
	}
	if !c.Flags().Changed("namespace") {
		s.Namespace.Name = ""
	}
	s.Scope.LoRAName = f.LoRAName
	s.Engines = f.options(c)
	return nil
}

func hasEngine(engines []keys.Engine, e keys.Engine) bool {
	for _, x := range engines {
		if x == e {
			return true
		}
	}
	return false
}

// options builds the engine options from the flags.
func (f *engineFlags) options(c *cobra.Command) keys.EngineOptions {
	o := keys.EngineOptions{
		Version: keys.EngineVersion(f.Version), HashAlgo: keys.HashAlgo(f.HashAlgo), Eagle: f.Eagle,
		MLA: f.MLA, KVHeads: f.KVHeads, PPRank: f.PPRank, PPSize: f.PPSize,
		PCPRank: f.PCPRank, DCPRank: f.DCPRank, Group: f.Group, DType: f.DType,
	}
	if c.Flags().Changed("hash-seed") {
		seed := f.HashSeed
		o.HashSeed = &seed
	}
	if f.Engine == string(keys.EngineLMCache) || c.Flags().Changed("chunk-size") {
		o.ChunkSize = f.ChunkSize
	}
	if c.Flags().Changed("dynamo-sequence-seed") || f.Version == "" {
		seq := uint64(f.SequenceSeed)
		o.SequenceSeed = &seq
	}
	return o
}
