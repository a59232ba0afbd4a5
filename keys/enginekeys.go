package keys

import (
	"path"
	"strconv"
	"strings"
)

// DefaultDType is the KV dtype spelled in LMCache keys when none is given.
const DefaultDType = "bfloat16"

// EngineHasKeys reports whether the engine's blocks have pool keys:
// Dynamo's router hashes blocks but keeps no pool.
func EngineHasKeys(e Engine) bool { return e != EngineDynamo }

// AppendEngineKeys appends the pool keys of block b under s.Engine, in the
// order a lookup asks for them (one rank after another, in Layout.Ranks
// order). The model is Namespace.ModelKey; Namespace.Name is vLLM's
// cache prefix and SGLang's backend tag (empty: none).
func (s Settings) AppendEngineKeys(dst []string, b EngineBlock) []string {
	switch s.Engine {
	case EngineVLLM:
		return s.appendVLLMKeys(dst, b.Hash)
	case EngineSGLang:
		return s.appendSGLangKeys(dst, b.Hash)
	case EngineLMCache:
		return s.appendLMCacheKeys(dst, b.Hash)
	}
	return dst
}

// vllmReplication is the TP replication factor f of vLLM's
// MooncakeStoreConnector keys (distributed/kv_transfer/kv_connector/v1/
// mooncake/store/worker.py): ranks r and r' with r/f == r'/f hold the
// same KV heads and share keys. MLA replicates over the whole TP group;
// otherwise f = max(1, tp_size / num_kv_heads) (KVHeads 0: 1).
func (s Settings) vllmReplication() int {
	world := max(1, s.Layout.World)
	if s.Engines.MLA {
		return world
	}
	if s.Engines.KVHeads == 0 {
		return 1
	}
	return max(1, world/s.Engines.KVHeads)
}

// appendVLLMKeys spells vLLM's MooncakeStoreConnector keys (vllm
// distributed/kv_transfer/kv_connector/v1/mooncake/store/data.py:
// PoolKey.build_prefix, build_key_string):
//
//	[<cache_prefix>@]<basename(model)>@tp_rank:<R>@pcp<P>@dcp<D>@pp_rank:<PP>@group:<G>@<hex digest>
//
// or, for version pr40900 (mooncake/mooncake_store_data.py:
// PoolKey.to_string), the same without the cache prefix and @group:<G>.
// R is tp_rank / f (vllmReplication); ranks that share R share one key.
func (s Settings) appendVLLMKeys(dst []string, hash string) []string {
	o, f := s.Engines, s.vllmReplication()
	last := -1
	for _, r := range s.Layout.Ranks {
		if r/f == last {
			continue
		}
		last = r / f
		var b strings.Builder
		if s.Namespace.Name != "" {
			b.WriteString(s.Namespace.Name + "@")
		}
		b.WriteString(path.Base(s.Namespace.ModelKey))
		b.WriteString("@tp_rank:" + strconv.Itoa(r/f))
		b.WriteString("@pcp" + strconv.Itoa(o.PCPRank) + "@dcp" + strconv.Itoa(o.DCPRank))
		b.WriteString("@pp_rank:" + strconv.Itoa(o.PPRank))
		if o.version(EngineVLLM) != VersionVLLMPR40900 {
			b.WriteString("@group:" + strconv.Itoa(o.Group))
		}
		b.WriteString("@" + hash)
		dst = append(dst, b.String())
	}
	return dst
}

// sglangPrefix is the optional start of SGLang's keys: the backend tag
// then the model with "/" spelled "-", each followed by "_".
func (s Settings) sglangPrefix() string {
	var p string
	if s.Namespace.Name != "" {
		p = s.Namespace.Name + "_"
	}
	if s.Namespace.ModelKey != "" {
		p += strings.ReplaceAll(s.Namespace.ModelKey, "/", "-") + "_"
	}
	return p
}

// appendSGLangKeys spells SGLang HiCache's Mooncake keys of a page (sglang
// srt/mem_cache/storage/mooncake_store/mooncake_store.py: MooncakeStore
// __init__'s mha_suffix and mla_suffix, _get_mha_buffer_meta): an MHA model
// stores <hash>_<tp>_k and <hash>_<tp>_v per TP rank (<hash>_<tp>_<pp>_k
// with pipeline parallelism), an MLA model one <hash>_<mla_suffix>_k for
// every rank, the suffix empty (<hash>__k) or, with pipeline parallelism,
// the pp rank (<hash>_<pp>_k).
func (s Settings) appendSGLangKeys(dst []string, hash string) []string {
	p := s.sglangPrefix() + hash
	if s.Engines.MLA {
		if s.Engines.PPSize > 1 {
			return append(dst, p+"_"+strconv.Itoa(s.Engines.PPRank)+"_k")
		}
		return append(dst, p+"__k")
	}
	for _, r := range s.Layout.Ranks {
		k := p + "_" + strconv.Itoa(r)
		if s.Engines.PPSize > 1 {
			k += "_" + strconv.Itoa(s.Engines.PPRank)
		}
		dst = append(dst, k+"_k", k+"_v")
	}
	return dst
}

// appendLMCacheKeys spells LMCache's CacheEngineKey of a chunk, current
// format (lmcache utils.py: CacheEngineKey.to_string), per worker:
//
//	<model>@<world_size>@<worker_id>@<hex chunk hash>@<dtype>
func (s Settings) appendLMCacheKeys(dst []string, hash string) []string {
	dtype := s.Engines.DType
	if dtype == "" {
		dtype = DefaultDType
	}
	world := strconv.Itoa(max(1, s.Layout.World))
	for _, r := range s.Layout.Ranks {
		dst = append(dst, s.Namespace.ModelKey+"@"+world+"@"+strconv.Itoa(r)+"@"+hash+"@"+dtype)
	}
	return dst
}
