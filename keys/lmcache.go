package keys

// DefaultChunkSize is LMCache's default chunk_size, in tokens.
const DefaultChunkSize = 256

// chunkSize returns o.ChunkSize, DefaultChunkSize when it is 0.
func (o EngineOptions) chunkSize() int {
	if o.ChunkSize == 0 {
		return DefaultChunkSize
	}
	return o.ChunkSize
}

// lmcacheBlocks hashes a prompt's chunks as LMCache does with a vLLM hash
// function (lmcache v1/token_database.py: ChunkedTokenDatabase): vLLM's
// chain with no extra keys (None) from the same root, over chunks of
// chunk_size tokens, the trailing partial chunk included
// (save_unfull_chunk). Full chunks equal vLLM's hashes at block size
// chunk_size. LMCache's default hash, Python's builtin hash(), is not
// offered: it is reproducible only on CPython 3.12 or later with a fixed
// seed.
func lmcacheBlocks(o EngineOptions, tokens []int64) ([]EngineBlock, error) {
	h := &pyHasher{algo: o.hashAlgo()}
	root, err := vllmRoot(h, o.HashSeed)
	if err != nil {
		return nil, err
	}
	var parentBuf [32]byte
	parent := append(parentBuf[:0], root...)
	n := o.chunkSize()
	out := make([]EngineBlock, 0, (len(tokens)+n-1)/n)
	for start := 0; start < len(tokens); start += n {
		end := min(start+n, len(tokens))
		d, err := h.sumBlock(parent, tokens[start:end], nil)
		if err != nil {
			return nil, err
		}
		out = append(out, digestBlock(start, end, d))
		parent = append(parent[:0], d...)
	}
	return out, nil
}
