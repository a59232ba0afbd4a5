package keys

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"golang.org/x/crypto/blake2b"
)

// benchTokens is one prompt of the keys benchmark: 20,000 tokens.
func benchTokens() []int64 {
	rng := rand.New(rand.NewPCG(7, 8))
	tokens := make([]int64, 20000)
	for i := range tokens {
		tokens[i] = int64(rng.IntN(151936))
	}
	return tokens
}

// BenchmarkChain hashes a 20,000-token prompt with T=32 through Chain,
// token encoding included. Compare ns/block with BenchmarkRawBlake2bChain.
func BenchmarkChain(b *testing.B) {
	tokens := benchTokens()
	c, err := NewChain(Hash{}, 32, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(8 * len(tokens)))
	b.ReportAllocs()
	for b.Loop() {
		c.Reset(Hash{})
		c.Extend(tokens)
	}
	reportBlocks(b, len(tokens), 32)
}

// BenchmarkChainNew is BenchmarkChain with a new Chain per prompt, as a
// caller that does not reuse chains pays.
func BenchmarkChainNew(b *testing.B) {
	tokens := benchTokens()
	b.SetBytes(int64(8 * len(tokens)))
	b.ReportAllocs()
	for b.Loop() {
		c, _ := NewChain(Hash{}, 32, 0)
		c.Extend(tokens)
	}
	reportBlocks(b, len(tokens), 32)
}

// BenchmarkRawBlake2bChain is the floor: the same chain over tokens already
// encoded, one reused hasher, nothing else.
func BenchmarkRawBlake2bChain(b *testing.B) {
	data := encodeTokens(benchTokens())
	const width = 32 * 8
	d, _ := blake2b.New(HashSize, nil)
	var parent [HashSize]byte
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for off := 0; off+width <= len(data); off += width {
			d.Reset()
			d.Write(parent[:])
			d.Write(data[off : off+width])
			d.Sum(parent[:0])
		}
	}
	reportBlocks(b, len(data)/8, 32)
}

func reportBlocks(b *testing.B, tokens, T int) {
	n := float64(b.N)
	secs := b.Elapsed().Seconds()
	b.ReportMetric(n*float64(tokens)/secs, "tokens/s")
	b.ReportMetric(secs*1e9/(n*float64(tokens/T)), "ns/block")
}

// BenchmarkAppendJSONTokens parses a 20,000-token JSON array as Python's
// json.dumps writes it.
func BenchmarkAppendJSONTokens(b *testing.B) {
	benchmarkJSONTokens(b, benchTokens(), ", ")
}

// BenchmarkAppendJSONTokensShapes parses arrays the fast paths take less
// of, or none: no spaces, large ids (8 digits), any int64.
func BenchmarkAppendJSONTokensShapes(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	wide := make([]int64, 20000)
	large := make([]int64, 20000)
	for i := range wide {
		wide[i] = int64(rng.Uint64())
		large[i] = 10_000_000 + rng.Int64N(90_000_000)
	}
	b.Run("compact", func(b *testing.B) { benchmarkJSONTokens(b, benchTokens(), ",") })
	b.Run("large", func(b *testing.B) { benchmarkJSONTokens(b, large, ", ") })
	b.Run("int64", func(b *testing.B) { benchmarkJSONTokens(b, wide, ", ") })
}

func benchmarkJSONTokens(b *testing.B, tokens []int64, sep string) {
	data := []byte{'['}
	for i, t := range tokens {
		if i > 0 {
			data = append(data, sep...)
		}
		data = strconv.AppendInt(data, t, 10)
	}
	data = append(data, ']')
	dst := make([]int64, 0, len(tokens))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var err error
		if dst, _, err = AppendJSONTokens(dst[:0], data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(tokens))/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkAppendBlockKeys spells the keys of one block: TP 4, all ranks,
// two layer groups and one replicated group (9 keys).
func BenchmarkAppendBlockKeys(b *testing.B) {
	l := Layout{TokensPerBlock: 32, LayerGroups: []LayerGroup{{0, 65536}, {1, 4096}}, Replicated: []LayerGroup{{2, 1024}}, World: 4, Ranks: []int{0, 1, 2, 3}}
	ns := Namespace{Name: DefaultNamespace, ModelKey: "deepseek-r1"}
	dst := make([]string, 0, 16)
	b.ReportAllocs()
	for b.Loop() {
		dst = ns.AppendBlockKeys(dst[:0], l, Hash{1})
	}
}

// BenchmarkExtendAll hashes 16 prompts of 20,000 tokens with T=32 through
// ExtendAll (eight lanes with AVX-512). Compare ns/block with BenchmarkChain.
func BenchmarkExtendAll(b *testing.B) {
	const n = 16
	prompt := benchTokens()
	tokens := make([][]int64, n)
	chains := make([]*Chain, n)
	for i := range tokens {
		tokens[i] = prompt
		chains[i], _ = NewChain(Hash{byte(i)}, 32, 0)
	}
	b.SetBytes(int64(n * 8 * len(prompt)))
	for b.Loop() {
		for i, c := range chains {
			c.Reset(Hash{byte(i)})
		}
		ExtendAll(chains, tokens)
	}
	reportBlocks(b, n*len(prompt), 32)
}

// BenchmarkBlockKeys is BenchmarkAppendBlockKeys with the speller made once.
func BenchmarkBlockKeys(b *testing.B) {
	l := Layout{TokensPerBlock: 32, LayerGroups: []LayerGroup{{0, 65536}, {1, 4096}}, Replicated: []LayerGroup{{2, 1024}}, World: 4, Ranks: []int{0, 1, 2, 3}}
	k := Namespace{Name: DefaultNamespace, ModelKey: "deepseek-r1"}.BlockKeys(l)
	dst := make([]string, 0, 16)
	b.ReportAllocs()
	for b.Loop() {
		dst = k.Append(dst[:0], Hash{1})
	}
}
