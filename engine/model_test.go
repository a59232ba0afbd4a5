package engine

import (
	"bytes"
	"testing"

	"github.com/kvctl/kvctl/keys"
)

func TestModelPages(t *testing.T) {
	m := Model{Regions: 2}
	h := keys.Hash{1, 2, 3}
	page := func(size int, h keys.Hash, lg, rank int) []byte {
		b := make([]byte, size)
		m.Fill(b, h, lg, rank)
		return b
	}
	base := page(130, h, 0, 0)
	if !bytes.Equal(base, page(130, h, 0, 0)) {
		t.Fatal("Fill is not deterministic")
	}
	for name, other := range map[string][]byte{
		"another block": page(130, keys.Hash{1, 2, 4}, 0, 0),
		"another layer": page(130, h, 1, 0),
		"another rank":  page(130, h, 0, 1),
		"replicated":    page(130, h, 0, -1),
	} {
		if bytes.Equal(base, other) {
			t.Errorf("page of %s equals the base page", name)
		}
	}
	// The two regions are seeded apart: the second half is not the first.
	if bytes.Equal(base[:65], base[65:]) {
		t.Error("both regions hold the same bytes")
	}
	for _, size := range []int{1, 7, 64, 130} {
		p := page(size, h, 3, 0)
		if !m.Equal(p, h, 3, 0) {
			t.Errorf("Equal(Fill(%d bytes)) = false, want true", size)
		}
		p[size-1] ^= 1
		if m.Equal(p, h, 3, 0) {
			t.Errorf("Equal of a %d-byte page with its last byte flipped = true, want false", size)
		}
	}
}

func TestNextToken(t *testing.T) {
	seen := map[int64]bool{}
	for pos := range 1000 {
		tok := NextToken(42, pos)
		if tok < 0 || tok >= vocabSize {
			t.Fatalf("NextToken(42, %d) = %d, want in [0, %d)", pos, tok, vocabSize)
		}
		if tok != NextToken(42, pos) {
			t.Fatalf("NextToken(42, %d) is not deterministic", pos)
		}
		seen[tok] = true
	}
	if len(seen) < 990 {
		t.Errorf("1000 positions gave %d distinct tokens, want about 1000", len(seen))
	}
}
