package keys

import "errors"

// BlockTokens returns the tokens of a full block under s: LMCache's chunk
// size, vLLM's connector chunk size when given, else T (vLLM's hash block
// size, SGLang's page_size, Dynamo's kv_block_size).
func (s Settings) BlockTokens() int {
	switch {
	case s.Engine == EngineLMCache:
		return s.Engines.chunkSize()
	case s.Engine == EngineVLLM && s.Engines.ChunkSize > 0:
		return s.Engines.ChunkSize
	}
	return s.Layout.TokensPerBlock
}

// IsTRTLLM reports whether s keys TensorRT-LLM's pools (Engine empty or
// EngineTRTLLM).
func (s Settings) IsTRTLLM() bool { return s.Engine == "" || s.Engine == EngineTRTLLM }

// errNoPool refuses a lookup of an engine whose blocks have no pool keys.
var errNoPool = errors.New("dynamo's router keeps no pool: its blocks have no pool keys to look up")

// KeysPerBlock returns how many pool keys a lookup asks for per block
// under s: TensorRT-LLM's pages of a block (Layout.PagesPerBlock), or
// another engine's keys of a block (AppendEngineKeys), 0 for Dynamo.
func (s Settings) KeysPerBlock() int {
	if s.IsTRTLLM() {
		return s.Layout.PagesPerBlock()
	}
	return len(s.AppendLookupBlockKeys(nil, EngineBlock{}))
}

// AppendLookupBlockKeys appends the keys a lookup asks for of one block of
// an engine other than TensorRT-LLM, KeysPerBlock of them: the block's keys (AppendEngineKeys),
// and for vLLM under pipeline parallelism every pp rank's (vllm
// distributed/kv_transfer/kv_connector/v1/mooncake/store/worker.py:
// MooncakeStoreWorker.lookup expands its keys over pp ranks 0..pp_size-1).
func (s Settings) AppendLookupBlockKeys(dst []string, b EngineBlock) []string {
	if s.Engine != EngineVLLM || s.Engines.PPSize <= 1 {
		return s.AppendEngineKeys(dst, b)
	}
	for pp := range s.Engines.PPSize {
		s.Engines.PPRank = pp
		dst = s.AppendEngineKeys(dst, b)
	}
	return dst
}

// AppendLookupKeys appends the pool keys of a prompt's full blocks under
// s, block by block and KeysPerBlock a block, as the engine's connector
// looks a prompt up: a block is present only if every one of its keys
// is (TensorRT-LLM: every layer group, shard and replicated page; SGLang:
// every rank's _k and _v; vLLM: every rank its lookup asks for, every pp
// rank's with Engines.PPSize > 1; LMCache: every worker's chunk). LMCache's partial last chunk, which the
// connector keys too, is left out: only full blocks count. It returns
// the number of blocks.
func (s Settings) AppendLookupKeys(dst []string, scope Scope, tokens []int64) ([]string, int, error) {
	if s.IsTRTLLM() {
		hashes, err := s.Hashes(scope, tokens)
		if err != nil {
			return dst, 0, err
		}
		for _, h := range hashes {
			dst = s.AppendBlockKeys(dst, h)
		}
		return dst, len(hashes), nil
	}
	if !EngineHasKeys(s.Engine) {
		return dst, 0, errNoPool
	}
	blocks, err := s.EngineBlocks(scope, tokens)
	if err != nil {
		return dst, 0, err
	}
	n := 0
	for _, b := range blocks {
		if b.End-b.Start != s.BlockTokens() {
			break
		}
		dst = s.AppendLookupBlockKeys(dst, b)
		n++
	}
	return dst, n, nil
}
