// Package keys computes the pool block keys of TensorRT-LLM's Mooncake-store
// KV connector, byte for byte: scope seeds, prompt lookahead, incremental
// block-hash chains, page and eviction-group key strings for tensor-parallel,
// attention-data-parallel and replicated layouts. It also reads prompt token
// ids from JSON, text or raw int64 input; JSON arrays of short ids are read
// through AVX2 byte-class masks a 64-byte window at a time where the CPU
// has AVX2, BMI1 and BMI2 (jsonmasks.go), eight bytes at a time elsewhere.
//
// The recipe is the one in spec/keys.md: BLAKE2b with a 16-byte digest,
// tokens as little-endian int64, a framed scope seed, and
//
//	h[b] = H(h[b-1] ‖ int64le(tokens[b*T : (b+1)*T + L]))
//
// where T is tokens_per_block and L the prompt lookahead of a one-model draft.
// Settings holds the whole recipe (scheme, lookahead, layout, namespace,
// scope) in one value: flags and configuration files fill it, and chains
// and key spellers are built from it.
//
// One chain is bound by the latency of a BLAKE2b compression (about 600 ns
// a block of 32 tokens). ExtendAll hashes many chains together, eight at a
// time in the lanes of AVX-512 registers where the CPU has them, several
// times faster; BlockKeys spells the keys of many blocks of one layout.
// HashRequests runs a stream of requests through ExtendAll on every core
// and hands them back in input order; each request's tokens go back to its
// source (Request.Release) once its result is built, so that a reader can
// parse the next requests into the same arrays.
//
// The engines that share the same Mooncake pools have recipes of their own
// (spec/engine-keys.md), chosen by Settings.Engine with EngineOptions:
// vLLM's prefix-cache block hash (SHA-256 or XXH3-128 of pickle protocol 5
// or canonical CBOR, chained from the hash of PYTHONHASHSEED) and its
// MooncakeStoreConnector keys, LMCache's chunk hashes and CacheEngineKey,
// SGLang HiCache's page hashes and keys, and Dynamo's KV-router block and
// sequence hashes. EngineBlocks hashes a prompt under one of them and
// AppendEngineKeys spells a block's pool keys; AppendLookupKeys spells the
// keys a lookup of a prompt asks a pool for, under any engine;
// HashEngineRequests is HashRequests' pipeline for their requests. Release
// lines whose keys differ are named in EngineVersions and chosen by
// EngineOptions.Version, never guessed.
package keys
