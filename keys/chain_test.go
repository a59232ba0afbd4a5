package keys

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// encodeTokens returns tokens as little-endian int64 bytes.
func encodeTokens(tokens []int64) []byte {
	b := make([]byte, 8*len(tokens))
	for i, t := range tokens {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(t))
	}
	return b
}

// referenceChain is the spec's one-shot loop, written plainly.
func referenceChain(seed Hash, tokens []int64, T, L int) []Hash {
	n := max(0, len(tokens)-L) / T
	out := make([]Hash, 0, n)
	parent := seed
	for b := range n {
		parent = Digest(parent[:], encodeTokens(tokens[b*T:(b+1)*T+L]))
		out = append(out, parent)
	}
	return out
}

func TestDigest(t *testing.T) {
	tests := []struct {
		parts []string
		want  string
	}{
		{[]string{"abc"}, "cf4ab791c62b8d2b2109c90275287816"},
		{[]string{"a", "", "bc"}, "cf4ab791c62b8d2b2109c90275287816"},
		{[]string{"\x00\x00\x00\x00\x00\x00\x00\x00"}, "c804ce198ec337e3dc762bdd1a09aece"},
	}
	for _, tt := range tests {
		parts := make([][]byte, len(tt.parts))
		for i, p := range tt.parts {
			parts[i] = []byte(p)
		}
		if got := Digest(parts...).String(); got != tt.want {
			t.Errorf("Digest(%q) = %s, want %s", tt.parts, got, tt.want)
		}
	}
}

func TestParseHash(t *testing.T) {
	h, err := ParseHash("CF4AB791C62B8D2B2109C90275287816")
	if err != nil || h.String() != "cf4ab791c62b8d2b2109c90275287816" {
		t.Errorf("ParseHash(upper) = %s, %v", h, err)
	}
	for _, bad := range []string{"", "cf4a", "zf4ab791c62b8d2b2109c90275287816"} {
		if _, err := ParseHash(bad); err == nil {
			t.Errorf("ParseHash(%q) = nil error, want an error", bad)
		}
	}
	var u Hash
	if err := u.UnmarshalText([]byte(h.String())); err != nil || u != h {
		t.Errorf("UnmarshalText(MarshalText) = %s, %v, want %s", u, err, h)
	}
}

func TestParseScheme(t *testing.T) {
	for _, s := range Schemes {
		if got, err := ParseScheme(string(s)); got != s || err != nil {
			t.Errorf("ParseScheme(%q) = %q, %v", s, got, err)
		}
	}
	_, err := ParseScheme("vllm")
	if err == nil || !strings.Contains(err.Error(), `"vllm"`) || !strings.Contains(err.Error(), "trtllm-legacy") {
		t.Errorf("ParseScheme(vllm) error = %v, want it to name the scheme and the valid ones", err)
	}
}

func TestSeedErrors(t *testing.T) {
	tests := []struct {
		scheme    Scheme
		lookahead int
		want      string
	}{
		{SchemeTRTLLM, -1, "must not be negative"},
		{SchemeFork, -2, "must not be negative"},
		{SchemeLegacy, 1, "no prompt lookahead"},
		{"other", 0, `unknown key scheme "other"`},
	}
	for _, tt := range tests {
		_, err := Seed(tt.scheme, Scope{}, tt.lookahead)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Seed(%s, L=%d) error = %v, want %q", tt.scheme, tt.lookahead, err, tt.want)
		}
	}
}

func TestSeedForkIgnoresLoRAAndMultimodal(t *testing.T) {
	id := int64(7)
	plain, _ := Seed(SchemeFork, Scope{CacheSalt: "s"}, 1)
	scoped, _ := Seed(SchemeFork, Scope{CacheSalt: "s", LoRATaskID: &id, Multimodal: [][8]int32{{1}}}, 1)
	if plain != scoped {
		t.Errorf("Seed(fork) with LoRA and multimodal = %s, want %s", scoped, plain)
	}
}

func TestNewChainErrors(t *testing.T) {
	for _, tt := range []struct{ T, L int }{{0, 0}, {-1, 0}, {16, -1}} {
		if _, err := NewChain(Hash{}, tt.T, tt.L); err == nil {
			t.Errorf("NewChain(T=%d, L=%d) = nil error, want an error", tt.T, tt.L)
		}
	}
}

func TestChainMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct{ n, T, L int }{
		{0, 1, 0}, {1, 1, 0}, {5, 1, 3}, {100, 7, 2}, {1000, 32, 0}, {1000, 32, 5}, {33, 32, 1}, {40, 4, 40},
	} {
		tokens := make([]int64, tt.n)
		for i := range tokens {
			tokens[i] = int64(rng.Uint64())
		}
		seed := Digest([]byte("seed"))
		want := hexHashes(referenceChain(seed, tokens, tt.T, tt.L))
		checkChain(t, "random", seed, tokens, tt.T, tt.L, want)
	}
}

func TestChainAccessorsAndReset(t *testing.T) {
	seed := Digest([]byte("a"))
	c, err := NewChain(seed, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	tokens := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	c.Extend(tokens)
	want := referenceChain(seed, tokens, 4, 1)
	if c.NumBlocks() != 2 || c.Hash(0) != want[0] || c.Hash(1) != want[1] {
		t.Errorf("after 9 tokens: NumBlocks() = %d, Hash(0..1) = %s, %s, want 2, %s, %s", c.NumBlocks(), c.Hash(0), c.Hash(1), want[0], want[1])
	}
	if c.TokensPerBlock() != 4 || c.Lookahead() != 1 || c.Seed() != seed {
		t.Errorf("TokensPerBlock, Lookahead, Seed = %d, %d, %s, want 4, 1, %s", c.TokensPerBlock(), c.Lookahead(), c.Seed(), seed)
	}
	seed2 := Digest([]byte("b"))
	c.Reset(seed2)
	if c.NumBlocks() != 0 || c.NumTokens() != 0 || c.Seed() != seed2 {
		t.Fatalf("after Reset: NumBlocks, NumTokens = %d, %d, want 0, 0", c.NumBlocks(), c.NumTokens())
	}
	c.Extend(tokens)
	if diff := cmp.Diff(referenceChain(seed2, tokens, 4, 1), c.Hashes()); diff != "" {
		t.Errorf("after Reset and Extend (-want +got):\n%s", diff)
	}
}

func TestOfferableBlocks(t *testing.T) {
	tests := []struct{ n, T, blocks, want int }{
		{0, 16, 0, 0},
		{15, 16, 0, 0},
		{16, 16, 1, 0},
		{17, 16, 1, 1},
		{48, 16, 3, 2}, // a prompt of exactly 3 blocks is offered at most 2
		{49, 16, 3, 3},
		{49, 16, 2, 2}, // lookahead left the last block unhashed
		{64, 16, 3, 3},
		{10, 0, 0, 0},
	}
	for _, tt := range tests {
		if got := OfferableBlocks(tt.n, tt.T, tt.blocks); got != tt.want {
			t.Errorf("OfferableBlocks(%d, %d, %d) = %d, want %d", tt.n, tt.T, tt.blocks, got, tt.want)
		}
	}
}

func TestFullBlocks(t *testing.T) {
	tests := []struct{ n, T, want int }{
		{0, 16, 0},
		{15, 16, 0},
		{16, 16, 1}, // the block holding the last token counts, though it is never offered
		{47, 16, 2},
		{48, 16, 3},
		{10, 0, 0},
		{-1, 16, 0},
	}
	for _, tt := range tests {
		if got := FullBlocks(tt.n, tt.T); got != tt.want {
			t.Errorf("FullBlocks(%d, %d) = %d, want %d", tt.n, tt.T, got, tt.want)
		}
	}
}

func TestNewChainRefusesOutOfRange(t *testing.T) {
	for _, tt := range []struct{ t, l int }{
		{0, 0}, {MaxTokensPerBlock + 1, 0}, {1 << 61, 0}, {16, -1}, {16, MaxLookahead + 1}, {16, 1 << 61}, {16, 1 << 62},
	} {
		var re *RangeError
		if _, err := NewChain(Hash{}, tt.t, tt.l); !errors.As(err, &re) {
			t.Errorf("NewChain(seed, %d, %d) error = %v, want a *RangeError", tt.t, tt.l, err)
		}
	}
}

// TestChainGrow: a chain grown for its blocks hashes them as one that was
// not, in one allocation that extending does not move.
func TestChainGrow(t *testing.T) {
	seed := Digest([]byte("grow"))
	tokens := make([]int64, 100)
	for i := range tokens {
		tokens[i] = int64(i * 7)
	}
	grown, err := NewChain(seed, 8, 2)
	if err != nil {
		t.Fatal(err)
	}
	grown.Grow(12)
	grown.Extend(tokens[:50])
	first := &grown.Hashes()[0]
	grown.Extend(tokens[50:])
	if got := &grown.Hashes()[0]; got != first {
		t.Errorf("Grow(12) then Extend: the hashes moved, want them in place")
	}
	want := hexHashes(referenceChain(seed, tokens, 8, 2))
	if diff := cmp.Diff(want, hexHashes(grown.Hashes())); diff != "" {
		t.Errorf("Grow(12) then Extend: hashes differ from the reference (-want +got):\n%s", diff)
	}
}
