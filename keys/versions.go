package keys

import (
	"fmt"
	"strings"
)

// EngineVersion names a release line of an engine whose block hashes or
// pool keys differ from another line's: versions that differ are named,
// not guessed. Empty means the engine's current line (the first of
// EngineVersions for it).
type EngineVersion string

// The named versions.
const (
	// VersionCurrent is every engine's current line.
	VersionCurrent EngineVersion = "current"
	// VersionVLLMPR40900 is vLLM's first in-tree MooncakeStoreConnector
	// (PR #40900, mooncake/mooncake_store_data.py: PoolKey.to_string):
	// no cache prefix, no @group: segment, one key per hash block.
	VersionVLLMPR40900 EngineVersion = "pr40900"
	// VersionLMCacheFmt is LMCache's CacheEngineKey led by the KV format
	// (lmcache utils.py before the fmt field was dropped).
	VersionLMCacheFmt EngineVersion = "fmt"
	// VersionDynamoRouter is Dynamo's KV router (lib/kv-router) and the
	// older lib/tokens: sequence-hash seed 1337.
	VersionDynamoRouter EngineVersion = "router"
	// VersionDynamoTokens is the newest lib/tokens: sequence-hash seed 0.
	VersionDynamoTokens EngineVersion = "tokens"
)

// EngineVersionInfo describes one named version of an engine.
type EngineVersionInfo struct {
	Engine Engine
	Name   EngineVersion
	// Source is the upstream file and function the version's recipe is
	// read from.
	Source string
	// Differs says what differs from the engine's current line.
	Differs string
	// Refused, when set, is why kvctl does not reproduce the version.
	Refused string
}

// EngineVersions lists the named versions, each engine's current one
// first. TensorRT-LLM's builds are its seed schemes (Scheme).
var EngineVersions = []EngineVersionInfo{
	{Engine: EngineVLLM, Name: VersionCurrent,
		Source:  "vllm distributed/kv_transfer/kv_connector/v1/mooncake/store/data.py: PoolKey.build_prefix, ChunkedTokenDatabase.process_tokens",
		Differs: "[cache_prefix@]model@tp_rank:R@pcpP@dcpD@pp_rank:PP@group:G@hex; a chunk of several hash blocks keyed by its last block's digest"},
	{Engine: EngineVLLM, Name: VersionVLLMPR40900,
		Source:  "vllm distributed/kv_transfer/kv_connector/v1/mooncake/mooncake_store_data.py (PR #40900): PoolKey.to_string, ChunkedTokenDatabase.process_tokens",
		Differs: "model@tp_rank:R@pcpP@dcpD@pp_rank:PP@hex: no cache prefix, no @group: segment, one key per hash block"},
	{Engine: EngineLMCache, Name: VersionCurrent,
		Source:  "lmcache utils.py: CacheEngineKey.to_string, chunk_hash_hex; v1/token_database.py: ChunkedTokenDatabase",
		Differs: "model@world_size@worker_id@hex@dtype"},
	{Engine: EngineLMCache, Name: VersionLMCacheFmt,
		Source:  "lmcache utils.py (older): CacheEngineKey.to_string with the fmt field",
		Differs: "fmt@model@world_size@worker_id@hash[@dtype]",
		Refused: "its chunk hash is spelled from an integer (decimal, or hex without leading zeros) that chains vLLM's older integer digests, which no golden value checks"},
	{Engine: EngineSGLang, Name: VersionCurrent,
		Source: "sglang srt/mem_cache/hicache_storage.py: get_hash_str; storage/mooncake_store/mooncake_store.py"},
	{Engine: EngineDynamo, Name: VersionDynamoRouter,
		Source:  "dynamo lib/kv-router/src/protocols.rs: compute_block_hash_for_seq; older lib/tokens/src/lib.rs",
		Differs: "sequence-hash seed 1337"},
	{Engine: EngineDynamo, Name: VersionDynamoTokens,
		Source:  "dynamo lib/tokens/src/lib.rs (newest): compute_hash",
		Differs: "sequence-hash seed 0"},
}

// versionsOf lists the names of e's versions.
func versionsOf(e Engine) []string {
	var names []string
	for _, v := range EngineVersions {
		if v.Engine == e {
			names = append(names, string(v.Name))
		}
	}
	return names
}

// LookupEngineVersion returns the version v of e; empty v is e's current
// line. A version e does not have is an error naming e's versions, one
// kvctl does not reproduce wraps ErrRefused.
func LookupEngineVersion(e Engine, v EngineVersion) (EngineVersionInfo, error) {
	if e == "" || e == EngineTRTLLM {
		if v == "" {
			return EngineVersionInfo{Engine: EngineTRTLLM, Name: VersionCurrent}, nil
		}
		return EngineVersionInfo{}, fmt.Errorf("engine version %q: TensorRT-LLM's builds are named by the seed scheme, not a version", v)
	}
	for _, info := range EngineVersions {
		if info.Engine != e || (v != "" && info.Name != v) {
			continue
		}
		if info.Refused != "" {
			return info, fmt.Errorf("%w: %s version %s: %s", ErrRefused, e, v, info.Refused)
		}
		return info, nil
	}
	return EngineVersionInfo{}, fmt.Errorf("unknown %s version %q (want %s)", e, v, strings.Join(versionsOf(e), " or "))
}

// version returns o.Version, resolved against e: "" is e's current line.
func (o EngineOptions) version(e Engine) EngineVersion {
	if o.Version != "" {
		return o.Version
	}
	info, _ := LookupEngineVersion(e, "")
	return info.Name
}

// validateVersion checks the version against the other options: the
// version exists, pr40900 keys have no cache prefix, group or chunks, and
// a Dynamo version given agrees with an explicit sequence seed.
func (s Settings) validateVersion() error {
	o := s.Engines
	if _, err := LookupEngineVersion(s.Engine, o.Version); err != nil {
		return err
	}
	switch o.version(s.Engine) {
	case VersionVLLMPR40900:
		if s.Namespace.Name != "" || o.Group != 0 || (o.ChunkSize != 0 && o.ChunkSize != s.Layout.TokensPerBlock) {
			return fmt.Errorf("vllm version %s spells no cache prefix (namespace), no kv cache group and no chunks of several blocks: give the current version", VersionVLLMPR40900)
		}
	case VersionDynamoRouter, VersionDynamoTokens:
		want := dynamoVersionSeed(o.Version)
		if o.Version != "" && o.SequenceSeed != nil && *o.SequenceSeed != want {
			return fmt.Errorf("dynamo version %s hashes sequences with seed %d, not %d", o.version(s.Engine), want, *o.SequenceSeed)
		}
	}
	return nil
}

// dynamoVersionSeed is the sequence-hash seed of a Dynamo version.
func dynamoVersionSeed(v EngineVersion) uint64 {
	if v == VersionDynamoTokens {
		return DynamoSequenceSeedTokens
	}
	return DynamoSequenceSeed
}
