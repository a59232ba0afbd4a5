package engine

import (
	"math/bits"

	"github.com/kvctl/kvctl/keys"
	"github.com/zeebo/xxh3"
)

// DefaultRegions is the number of regions (K and V) a synthetic page is
// split into.
const DefaultRegions = 2

// Model is the synthetic model: the KV bytes of a page are a deterministic
// function of the block's chain hash, the page's layer group, rank and
// region, so any copy of a page (computed here, loaded from the pool,
// computed by another run) can be checked byte for byte. It keeps no state
// and is safe for concurrent use.
//
// Each region's bytes are a stream of little-endian 64-bit words, cut
// into chunks of 512 words (4 KiB): word j of chunk c is
// T[j] XOR mix(seed + (c+1)·φ), where seed = xxh3-64 of the block hash
// seeded with (layer group, rank, region), T[j] = mix((j+1)·φ) a fixed
// table, φ the 64-bit golden ratio and mix the splitmix64 finaliser (a
// bijection). A tail of under 8 bytes is the first bytes of its word.
// Every word depends on the seed and on its position: the words of a
// chunk are distinct, and so are the chunk keys of a region, so a page of
// another block, layer group, rank or region, a page shifted by any number
// of bytes, or a chunk moved within its region, differs from the page
// (but for a chance of 2^-64 a word). Filling costs one mix a chunk and an
// XOR a word: about the speed of memory. The one home of the stream is
// modelbytes.go.
type Model struct {
	// Regions splits every page into this many regions of equal size (the
	// last one takes the remainder); at least 1.
	Regions int
}

const golden = 0x9e3779b97f4a7c15

// regionSeed is the xxh3 seed of one region of one page.
func regionSeed(h keys.Hash, lg, rank, region int) uint64 {
	tag := uint64(lg)<<40 ^ uint64(rank)<<20 ^ uint64(region)
	return xxh3.HashSeed(h[:], tag)
}

func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// regions calls fn for each region of a page of n bytes with its index and
// byte range.
func (m Model) regions(n int, fn func(region, from, to int)) {
	k := max(1, m.Regions)
	step := n / k
	if step == 0 {
		fn(0, 0, n)
		return
	}
	for r := range k {
		from, to := r*step, (r+1)*step
		if r == k-1 {
			to = n
		}
		fn(r, from, to)
	}
}

// Fill writes the page of block h, layer group lg and rank into dst (all of
// it: len(dst) is the page size).
func (m Model) Fill(dst []byte, h keys.Hash, lg, rank int) {
	m.regions(len(dst), func(region, from, to int) {
		fillRegion(dst[from:to], regionSeed(h, lg, rank, region))
	})
}

// Equal reports whether page holds exactly the bytes Fill would write for
// (h, lg, rank). It allocates nothing.
func (m Model) Equal(page []byte, h keys.Hash, lg, rank int) bool {
	ok := true
	m.regions(len(page), func(region, from, to int) {
		ok = ok && equalRegion(page[from:to], regionSeed(h, lg, rank, region))
	})
	return ok
}

// vocabSize bounds the synthetic model's output tokens.
const vocabSize = 128000

// NextToken is the token the model emits after position pos of a request
// whose decode seed is seed: deterministic, in [0, 128000).
func NextToken(seed uint64, pos int) int64 {
	hi, _ := bits.Mul64(mix(seed+uint64(pos)*golden), vocabSize)
	return int64(hi)
}
