package keys

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func randomTokens(rng *rand.Rand, n int) []int64 {
	tokens := make([]int64, n)
	for i := range tokens {
		tokens[i] = int64(rng.Uint64())
	}
	return tokens
}

// TestExtendAll compares ExtendAll with Extend, chain by chain, for shapes
// whose message (2+T+L words) takes one, two and three compressions,
// including exact multiples of the 16-word block.
func TestExtendAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, shape := range []struct{ T, L int }{{1, 0}, {14, 0}, {13, 1}, {16, 0}, {30, 0}, {32, 0}, {32, 3}, {64, 2}, {7, 40}} {
		for _, n := range []int{1, 2, 7, 8, 9, 17} {
			name := fmt.Sprintf("T=%d L=%d chains=%d", shape.T, shape.L, n)
			chains := make([]*Chain, n)
			want := make([]*Chain, n)
			prompts := make([][]int64, n)
			for i := range chains {
				seed := Digest([]byte{byte(i)})
				chains[i], _ = NewChain(seed, shape.T, shape.L)
				want[i], _ = NewChain(seed, shape.T, shape.L)
				prompts[i] = randomTokens(rng, rng.IntN(20*shape.T+40))
			}
			// Extend in two steps, so the second starts from pending tokens.
			for _, part := range [][2]float64{{0, 0.3}, {0.3, 1}} {
				batch := make([][]int64, n)
				for i, p := range prompts {
					batch[i] = p[int(part[0]*float64(len(p))):int(part[1]*float64(len(p)))]
					want[i].Extend(batch[i])
				}
				ExtendAll(chains, batch)
			}
			for i := range chains {
				if diff := cmp.Diff(want[i].Hashes(), chains[i].Hashes()); diff != "" {
					t.Fatalf("%s: chain %d (-Extend +ExtendAll):\n%s", name, i, diff)
				}
				if chains[i].NumTokens() != want[i].NumTokens() {
					t.Fatalf("%s: chain %d: NumTokens = %d, want %d", name, i, chains[i].NumTokens(), want[i].NumTokens())
				}
				more := randomTokens(rng, 2*shape.T+shape.L)
				want[i].Extend(more)
				chains[i].Extend(more)
				if diff := cmp.Diff(want[i].Hashes(), chains[i].Hashes()); diff != "" {
					t.Fatalf("%s: chain %d after a further Extend (-want +got):\n%s", name, i, diff)
				}
			}
		}
	}
}

func TestExtendAllMixedShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var chains, want []*Chain
	var tokens [][]int64
	for i := range 12 {
		T := []int{16, 32}[i%2]
		c, _ := NewChain(Hash{byte(i)}, T, 1)
		w, _ := NewChain(Hash{byte(i)}, T, 1)
		p := randomTokens(rng, 300)
		w.Extend(p)
		chains, want, tokens = append(chains, c), append(want, w), append(tokens, p)
	}
	ExtendAll(chains, tokens)
	for i := range chains {
		if diff := cmp.Diff(want[i].Hashes(), chains[i].Hashes()); diff != "" {
			t.Errorf("chain %d (-Extend +ExtendAll):\n%s", i, diff)
		}
	}
}

func TestExtendAllLengthMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ExtendAll with 1 chain and 0 token lists did not panic")
		}
	}()
	c, _ := NewChain(Hash{}, 4, 0)
	ExtendAll([]*Chain{c}, nil)
}

// TestExtendAllWithoutLanes runs the fallback on CPUs that have lanes.
func TestExtendAllWithoutLanes(t *testing.T) {
	saved := useLanes
	useLanes = false
	defer func() { useLanes = saved }()
	a, _ := NewChain(Hash{}, 4, 1)
	b, _ := NewChain(Hash{1}, 4, 1)
	ExtendAll([]*Chain{a, b}, [][]int64{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11}})
	if a.NumBlocks() != 1 || b.NumBlocks() != 1 || a.Hash(0) != referenceChain(Hash{}, []int64{1, 2, 3, 4, 5, 6}, 4, 1)[0] {
		t.Errorf("ExtendAll without lanes: blocks %d, %d", a.NumBlocks(), b.NumBlocks())
	}
}
