package keys

import (
	"encoding/binary"
	"hash"
	"slices"

	"golang.org/x/crypto/blake2b"
)

// Chain is a request's block-hash chain, extended as tokens arrive. It
// keeps only the tokens of the block not yet complete (and the lookahead
// window), not the whole prompt: extending it in any chunking gives the
// same hashes as one call with every token.
//
// Block b exists once tokens (b+1)*T+L exist:
//
//	h[b] = H(h[b-1] ‖ int64le(tokens[b*T : (b+1)*T + L])),  h[-1] = seed
//
// A Chain is not safe for concurrent use.
type Chain struct {
	seed      Hash
	perBlock  int // T
	lookahead int // L
	numTokens int
	hashes    []Hash
	// win holds the parent hash then the pending window of tokens as
	// little-endian int64: 16 + (T+L)*8 bytes; fill counts the token bytes.
	win  []byte
	fill int
	sum  hash.Hash // made at the first block Extend hashes
	// known counts the hashes in hashes' backing array that HashAhead
	// hashed: those past len(hashes) wait for Extend (chain_ahead.go).
	known int
	saved []byte // HashAhead's copy of win
}

// NewChain returns an empty chain starting at seed, for blocks of
// tokensPerBlock tokens and a prompt lookahead of lookahead tokens.
func NewChain(seed Hash, tokensPerBlock, lookahead int) (*Chain, error) {
	if err := checkRange(SettingTokensPerBlock, int64(tokensPerBlock), 1, MaxTokensPerBlock); err != nil {
		return nil, err
	}
	if err := checkRange(SettingLookahead, int64(lookahead), 0, MaxLookahead); err != nil {
		return nil, err
	}
	c := &Chain{
		perBlock:  tokensPerBlock,
		lookahead: lookahead,
		win:       make([]byte, HashSize+(tokensPerBlock+lookahead)*8),
	}
	c.Reset(seed)
	return c, nil
}

// Reset empties the chain and restarts it at seed, keeping its buffers.
func (c *Chain) Reset(seed Hash) {
	c.seed = seed
	c.numTokens = 0
	c.hashes = c.hashes[:0]
	c.fill, c.known = 0, 0
	copy(c.win, seed[:])
}

// Extend appends tokens and hashes every block they complete.
func (c *Chain) Extend(tokens []int64) {
	c.numTokens += len(tokens)
	win := c.win
	full := len(win) - HashSize
	for len(tokens) > 0 {
		k := min(len(tokens), (full-c.fill)/8)
		dst := win[HashSize+c.fill : HashSize+c.fill+8*k]
		for i, t := range tokens[:k] {
			binary.LittleEndian.PutUint64(dst[8*i:], uint64(t))
		}
		c.fill += 8 * k
		tokens = tokens[k:]
		if c.fill == full {
			c.hashBlock()
		}
	}
}

// hashBlock hashes the full window, makes the hash the next parent and
// keeps the lookahead tokens, which open the next block's window.
func (c *Chain) hashBlock() {
	if c.takeKnown() {
		return
	}
	if c.sum == nil {
		c.sum, _ = blake2b.New(HashSize, nil) // 16 is a valid size and there is no key
	}
	c.sum.Reset()
	c.sum.Write(c.win)
	c.sum.Sum(c.win[:0]) // the new parent overwrites the old one
	c.hashes = append(c.hashes, Hash(c.win[:HashSize]))
	step := HashSize + 8*c.perBlock
	c.fill = copy(c.win[HashSize:], c.win[step:])
}

// Grow makes room for blocks more block hashes, so that extending the
// chain by that many blocks does not move its hashes: one allocation of
// the right size instead of a doubling slice, when the caller knows how
// many tokens will come.
func (c *Chain) Grow(blocks int) {
	if blocks > 0 {
		c.hashes = slices.Grow(c.hashes, blocks)
	}
}

// blocksAfter is how many blocks extending the chain by n tokens
// completes: its pending tokens and the n new ones, a block's T tokens
// each with the L of lookahead after the last.
func (c *Chain) blocksAfter(n int) int {
	stream, window := c.fill/8+n, c.perBlock+c.lookahead
	if stream < window {
		return 0
	}
	return (stream-window)/c.perBlock + 1
}

// Seed returns the hash the chain starts from.
func (c *Chain) Seed() Hash { return c.seed }

// NumTokens returns how many tokens the chain has been extended with.
func (c *Chain) NumTokens() int { return c.numTokens }

// NumBlocks returns how many blocks are hashed: max(0, n-L) / T.
func (c *Chain) NumBlocks() int { return len(c.hashes) }

// Hash returns the hash of block i; it panics when i is not in
// [0, NumBlocks()).
func (c *Chain) Hash(i int) Hash { return c.hashes[i] }

// Hashes returns the block hashes in order. The slice is the chain's own:
// callers must not modify it, and it is only valid until the next Reset.
func (c *Chain) Hashes() []Hash { return c.hashes[:len(c.hashes):len(c.hashes)] }

// TokensPerBlock returns T.
func (c *Chain) TokensPerBlock() int { return c.perBlock }

// Lookahead returns the prompt lookahead L.
func (c *Chain) Lookahead() int { return c.lookahead }

// FullBlocks returns how many full blocks of tokensPerBlock tokens a prompt
// of numPromptTokens tokens has: numPromptTokens/tokensPerBlock, 0 when
// either is not positive. It is what every report's "blocks" counts (holes'
// probe and simulation, serve's prefix_holes; docs/holes.md), although a
// lookup examines only the first OfferableBlocks of them.
func FullBlocks(numPromptTokens, tokensPerBlock int) int {
	if numPromptTokens <= 0 || tokensPerBlock <= 0 {
		return 0
	}
	return numPromptTokens / tokensPerBlock
}

// OfferableBlocks returns how many leading blocks of a prompt the connector
// may offer from the pool: those before the block holding the last prompt
// token, so that the runtime always computes at least one token:
// min(numBlocks, max(0, (numPromptTokens-1)/tokensPerBlock)).
func OfferableBlocks(numPromptTokens, tokensPerBlock, numBlocks int) int {
	if numPromptTokens <= 0 || tokensPerBlock <= 0 {
		return 0
	}
	return max(0, min(numBlocks, (numPromptTokens-1)/tokensPerBlock))
}
