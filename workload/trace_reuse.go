package workload

import (
	"encoding/binary"
	"fmt"

	"github.com/zeebo/xxh3"
)

// Reuse is the ideal prefix reuse of a workload: the prompt tokens that an
// unbounded cache of every earlier request's prompt blocks could serve.
type Reuse struct {
	TokensPerBlock int64 `json:"tokens_per_block"`
	Requests       int64 `json:"requests"`
	PromptTokens   int64 `json:"prompt_tokens"`
	// ReusableTokens is the sum over requests of hit blocks times
	// TokensPerBlock.
	ReusableTokens int64 `json:"reusable_tokens"`
	// Fraction is ReusableTokens / PromptTokens.
	Fraction float64 `json:"fraction"`
}

// IdealPrefixReuse replays src against an unbounded cache of T-token
// blocks (T = tokensPerBlock) and measures the prefix reuse. Every request
// offers, as the connector does, its leading full blocks that some earlier
// request stored, never the block holding its last prompt token: at most
// (n-1)/T blocks of an n-token prompt. Then all n/T of its full blocks are
// stored. Blocks are identified by a 64-bit xxh3 chain over their tokens
// and all earlier tokens.
func IdealPrefixReuse(src Source, tokensPerBlock int) (Reuse, error) {
	if tokensPerBlock <= 0 {
		return Reuse{}, fmt.Errorf("tokens per block %d is not positive", tokensPerBlock)
	}
	t := tokensPerBlock
	r := Reuse{TokensPerBlock: int64(t)}
	stored := map[uint64]struct{}{}
	var chain []uint64
	var buf []byte
	err := src.Each(func(req Request) error {
		n := len(req.Tokens)
		chain, buf = blockChain(chain[:0], buf, req.Tokens, t)
		hits := 0
		for hits < (n-1)/t {
			if _, ok := stored[chain[hits]]; !ok {
				break
			}
			hits++
		}
		for _, h := range chain {
			stored[h] = struct{}{}
		}
		r.Requests++
		r.PromptTokens += int64(n)
		r.ReusableTokens += int64(hits * t)
		return nil
	})
	if err != nil {
		return Reuse{}, fmt.Errorf("measuring prefix reuse of %s: %w", src.Name(), err)
	}
	if r.PromptTokens > 0 {
		r.Fraction = float64(r.ReusableTokens) / float64(r.PromptTokens)
	}
	return r, nil
}

// blockChain appends the chained hash of each full t-token block of tokens
// to dst; buf is scratch space, returned for reuse.
func blockChain(dst []uint64, buf []byte, tokens []int64, t int) ([]uint64, []byte) {
	if cap(buf) < 8*t {
		buf = make([]byte, 8*t)
	}
	buf = buf[:8*t]
	h := uint64(0)
	for start := 0; start+t <= len(tokens); start += t {
		for i, tok := range tokens[start : start+t] {
			binary.LittleEndian.PutUint64(buf[8*i:], uint64(tok))
		}
		h = xxh3.HashSeed(buf, h)
		dst = append(dst, h)
	}
	return dst, buf
}
