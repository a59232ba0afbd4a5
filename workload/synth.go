package workload

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/zeebo/xxh3"
)

// DefaultVocab is the default vocabulary size of synthesised tokens.
const DefaultVocab = 128000

// Synthesizer turns the hash-id chains of a Mooncake trace into token ids.
// Block i of a request is drawn from a generator seeded with the xxh3 hash
// of the chain ids[0..i] (computed incrementally, one hash per block), so
// requests with equal id prefixes get equal tokens and different chains
// get different tokens; a partial last block is the first InputLength mod
// 512 tokens of its full block. Token ids are uniform in [0, Vocab).
//
// Generation runs at about a nanosecond a token, so nothing is cached but
// the chain: callers that only need block identities can use ChainSeeds
// and never materialise tokens.
type Synthesizer struct {
	// Vocab is the vocabulary size; 0 means DefaultVocab.
	Vocab int64
	// Seed perturbs every chain: different seeds give unrelated tokens.
	Seed uint64
}

func (s Synthesizer) vocab() uint64 {
	if s.Vocab <= 0 {
		return DefaultVocab
	}
	return uint64(s.Vocab)
}

// ChainSeeds appends to dst the seed of every block of the id chain: the
// seed of block i depends on ids[0..i] and nothing else.
func (s Synthesizer) ChainSeeds(dst []uint64, ids []int64) []uint64 {
	h := s.chainStart()
	for _, id := range ids {
		h = chainNext(h, id)
		dst = append(dst, h)
	}
	return dst
}

// chainStart is the seed before the first block.
func (s Synthesizer) chainStart() uint64 { return s.Seed ^ 0x6b766374_6c2d7472 } // "kvctl-tr"

// chainNext extends a chain seed by one block id.
func chainNext(h uint64, id int64) uint64 {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(id))
	return xxh3.HashSeed(buf[:], h)
}

// FillBlock fills dst with the first len(dst) tokens of the block whose
// chain seed is seed.
func (s Synthesizer) FillBlock(dst []int64, seed uint64) {
	fillTokens(dst, seed, s.vocab())
}

// AppendTokens appends the rec.InputLength prompt tokens of rec to dst.
// rec must be valid (see TraceRecord.Validate).
func (s Synthesizer) AppendTokens(dst []int64, rec TraceRecord) ([]int64, error) {
	if err := rec.Validate(); err != nil {
		return dst, fmt.Errorf("synthesising tokens: %w", err)
	}
	start := len(dst)
	dst = append(dst, make([]int64, rec.InputLength)...)
	out := dst[start:]
	h := s.chainStart()
	for i, id := range rec.HashIDs {
		h = chainNext(h, id)
		lo := i * TraceBlockTokens
		fillTokens(out[lo:min(lo+TraceBlockTokens, len(out))], h, s.vocab())
	}
	return dst, nil
}

// fillTokens fills dst from a wyrand generator seeded with seed, mapping
// each 64-bit output to [0, vocab) by a multiply-shift.
func fillTokens(dst []int64, seed, vocab uint64) {
	state := seed
	for i := range dst {
		state += 0xa0761d6478bd642f
		hi, lo := bits.Mul64(state, state^0xe7037ed1a0b428db)
		r := hi ^ lo
		t, _ := bits.Mul64(r, vocab)
		dst[i] = int64(t)
	}
}
