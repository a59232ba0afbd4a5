package keys

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// aheadToken is the test's token at position i of a chain.
func aheadToken(i int) int64 { return int64(i*7919%1000) - 3 }

func aheadTokens(from, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = aheadToken(from + i)
	}
	return out
}

// TestChainHashAhead checks that a chain extended after HashAhead has the
// hashes of one that hashed every block itself, whether the tokens come
// one by one or in chunks, fewer or more than were hashed ahead.
func TestChainHashAhead(t *testing.T) {
	tests := []struct {
		name          string
		T, L          int
		prompt, ahead int
		extend        []int // chunks extended after HashAhead
	}{
		{"one at a time", 4, 0, 10, 9, []int{1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"lookahead", 4, 2, 10, 12, []int{3, 5, 4}},
		{"fewer than ahead", 8, 0, 3, 40, []int{5, 11}},
		{"past the ahead", 4, 1, 8, 6, []int{2, 4, 9}},
		{"nothing ahead", 4, 0, 5, 0, []int{6}},
		{"from an empty chain", 2, 0, 0, 7, []int{7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, _ := NewChain(Hash{1}, tt.T, tt.L)
			ahead, _ := NewChain(Hash{1}, tt.T, tt.L)
			plain.Extend(aheadTokens(0, tt.prompt))
			ahead.Extend(aheadTokens(0, tt.prompt))
			ahead.HashAhead(tt.ahead, func(i int) int64 { return aheadToken(tt.prompt + i) })
			if diff := cmp.Diff(plain.Hashes(), ahead.Hashes(), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("after HashAhead(%d) the visible hashes changed (-want +got):\n%s", tt.ahead, diff)
			}
			pos := tt.prompt
			for _, n := range tt.extend {
				plain.Extend(aheadTokens(pos, n))
				ahead.Extend(aheadTokens(pos, n))
				pos += n
				if diff := cmp.Diff(plain.Hashes(), ahead.Hashes(), cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("after %d tokens, hashes (-want +got):\n%s", pos, diff)
				}
				if plain.NumTokens() != ahead.NumTokens() {
					t.Fatalf("after %d tokens, NumTokens() = %d, want %d", pos, ahead.NumTokens(), plain.NumTokens())
				}
			}
		})
	}
}

// TestChainHashAheadTrusted checks that Extend takes the hashes made ahead
// without hashing: other tokens get the hashes of the tokens hashed ahead.
func TestChainHashAheadTrusted(t *testing.T) {
	c, _ := NewChain(Hash{}, 2, 0)
	c.HashAhead(4, func(i int) int64 { return int64(i) })
	c.Extend([]int64{9, 9, 9, 9})
	want, _ := NewChain(Hash{}, 2, 0)
	want.Extend([]int64{0, 1, 2, 3})
	if diff := cmp.Diff(want.Hashes(), c.Hashes()); diff != "" {
		t.Errorf("Extend after HashAhead (-want +got):\n%s", diff)
	}
}

// TestChainResetDropsAhead checks that Reset forgets the hashes made ahead.
func TestChainResetDropsAhead(t *testing.T) {
	c, _ := NewChain(Hash{}, 2, 0)
	c.HashAhead(4, func(i int) int64 { return int64(i) })
	c.Reset(Hash{})
	c.Extend([]int64{9, 9, 9, 9})
	want, _ := NewChain(Hash{}, 2, 0)
	want.Extend([]int64{9, 9, 9, 9})
	if diff := cmp.Diff(want.Hashes(), c.Hashes()); diff != "" {
		t.Errorf("Extend after HashAhead and Reset (-want +got):\n%s", diff)
	}
}
