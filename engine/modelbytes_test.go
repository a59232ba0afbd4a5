package engine

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/kvctl/kvctl/keys"
)

// referenceRegion is Model's definition of a region's bytes, word by word.
func referenceRegion(n int, seed uint64) []byte {
	out := make([]byte, 0, n+8)
	for i := 0; len(out) < n; i++ {
		c, j := uint64(i/512), uint64(i%512)
		word := mix((j+1)*golden) ^ mix(seed+(c+1)*golden)
		out = binary.LittleEndian.AppendUint64(out, word)
	}
	return out[:n]
}

// regionSizes straddle the 64-byte steps, the 8-byte tail and the chunks.
var regionSizes = []int{0, 1, 7, 8, 9, 63, 64, 65, 4095, 4096, 4097, 8192, 3*4096 + 13}

func TestFillRegionFollowsTheDefinition(t *testing.T) {
	for _, n := range regionSizes {
		want := referenceRegion(n, 42)
		got := make([]byte, n)
		fillRegion(got, 42)
		if string(got) != string(want) {
			t.Errorf("fillRegion(%d bytes, 42) differs from the definition", n)
		}
		if !equalRegion(want, 42) {
			t.Errorf("equalRegion(definition of %d bytes, 42) = false, want true", n)
		}
	}
}

// TestEqualRegionCatchesEveryWrongByte: a change of any one byte of a
// region, in any chunk or in its tail, is a mismatch.
func TestEqualRegionCatchesEveryWrongByte(t *testing.T) {
	for _, n := range []int{1, 13, 3*4096 + 13} {
		p := make([]byte, n)
		fillRegion(p, 7)
		for i := range p {
			p[i] ^= 0x80
			if equalRegion(p, 7) {
				t.Fatalf("equalRegion of %d bytes with byte %d changed = true, want false", n, i)
			}
			p[i] ^= 0x80
		}
	}
}

// TestEqualRegionCatchesWrongData: bytes of another seed (another page, a
// stale one), or the right bytes at the wrong offset, are mismatches, in a
// region of one chunk and in one of several.
func TestEqualRegionCatchesWrongData(t *testing.T) {
	const seed = 7
	region := func(n int, seed uint64) []byte {
		p := make([]byte, n)
		fillRegion(p, seed)
		return p
	}
	for _, n := range []int{200, 3*4096 + 13} {
		shifted := func(by int) []byte { return region(n+by, seed)[by:] }
		wrong := map[string][]byte{
			"another seed":        region(n, seed+1),
			"zeros":               make([]byte, n),
			"shifted by 1 byte":   shifted(1),
			"shifted by 8 bytes":  shifted(8),
			"shifted by 64 bytes": shifted(64),
		}
		if n > 2*4096 {
			right := region(n, seed)
			wrong["shifted by a chunk"] = shifted(4096)
			wrong["first chunks swapped"] = slices.Concat(right[4096:8192], right[:4096], right[8192:])
			wrong["last chunk of another"] = slices.Concat(right[:8192], region(n, seed+1)[8192:])
		}
		for name, p := range wrong {
			if equalRegion(p, seed) {
				t.Errorf("equalRegion(%d bytes %s) = true, want false", n, name)
			}
		}
	}
}

func TestWordTableWordsDistinct(t *testing.T) {
	seen := map[uint64]int{}
	for j, w := range wordTable {
		if i, dup := seen[w]; dup {
			t.Fatalf("wordTable[%d] = wordTable[%d] = %#x, want distinct words", j, i, w)
		}
		seen[w] = j
	}
}

func BenchmarkModelPage(b *testing.B) {
	m := Model{Regions: 2}
	for _, size := range []int{DefaultPageBytes, 64 << 10} {
		page := make([]byte, size)
		b.Run(fmt.Sprintf("fill-%d", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				m.Fill(page, keys.Hash{byte(i)}, 0, 0)
			}
		})
		b.Run(fmt.Sprintf("equal-%d", size), func(b *testing.B) {
			m.Fill(page, keys.Hash{1}, 0, 0)
			b.SetBytes(int64(size))
			for b.Loop() {
				if !m.Equal(page, keys.Hash{1}, 0, 0) {
					b.Fatal("Equal(Fill) = false")
				}
			}
		})
	}
}
