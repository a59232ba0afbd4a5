package keys

// Hashing ahead. A caller that knows the tokens a chain will be extended
// with later (a replay's output tokens are a function of their position)
// can hash their blocks early, on another goroutine, and leave the
// extension itself cheap: HashAhead hashes the blocks without extending
// the chain, and Extend then takes each block's hash from there instead
// of hashing the block again. The chain's state is the same either way.

// HashAhead hashes the blocks that extending the chain by n tokens,
// token(0) to token(n-1), would complete, without extending it: until
// Reset, an Extend that completes one of those blocks takes its hash
// instead of hashing it. The caller vouches that the chain's next tokens
// are these (a prefix of them, or all of them and more): Extend does not
// check, and a different token gets the hash of the one given here.
// Hashes already ahead are replaced.
func (c *Chain) HashAhead(n int, token func(i int) int64) {
	numTokens, fill, blocks := c.numTokens, c.fill, len(c.hashes)
	c.saved = append(c.saved[:0], c.win...)
	c.known = 0
	var buf [64]int64
	for i := 0; i < n; i += len(buf) {
		k := min(n-i, len(buf))
		for j := range k {
			buf[j] = token(i + j)
		}
		c.Extend(buf[:k])
	}
	c.known = len(c.hashes)
	c.hashes = c.hashes[:blocks]
	copy(c.win, c.saved)
	c.numTokens, c.fill = numTokens, fill
}

// takeKnown completes the block in the window with the hash HashAhead
// made for it, if there is one, as hashBlock would.
func (c *Chain) takeKnown() bool {
	n := len(c.hashes)
	if n >= c.known {
		return false
	}
	c.hashes = c.hashes[:n+1]
	copy(c.win, c.hashes[n][:])
	step := HashSize + 8*c.perBlock
	c.fill = copy(c.win[HashSize:], c.win[step:])
	return true
}
