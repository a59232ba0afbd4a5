package workload

import (
	"slices"
	"testing"
)

func mustTokens(t testing.TB, s Synthesizer, rec TraceRecord) []int64 {
	t.Helper()
	tok, err := s.AppendTokens(nil, rec)
	if err != nil {
		t.Fatalf("AppendTokens(%+v) = %v", rec, err)
	}
	return tok
}

func TestSynthesizerPrefixes(t *testing.T) {
	var s Synthesizer
	a := mustTokens(t, s, TraceRecord{InputLength: 1500, HashIDs: []int64{0, 1, 2}})
	b := mustTokens(t, s, TraceRecord{InputLength: 1100, HashIDs: []int64{0, 1, 9}})
	c := mustTokens(t, s, TraceRecord{InputLength: 1024, HashIDs: []int64{5, 1}})
	d := mustTokens(t, s, TraceRecord{InputLength: 1536, HashIDs: []int64{0, 1, 2}})
	if len(a) != 1500 || len(b) != 1100 || len(c) != 1024 {
		t.Fatalf("AppendTokens lengths = %d, %d, %d, want 1500, 1100, 1024", len(a), len(b), len(c))
	}
	if !slices.Equal(a[:1024], b[:1024]) {
		t.Errorf("requests with ids [0 1 ...] differ in their first two blocks")
	}
	if slices.Equal(a[1024:1100], b[1024:1100]) {
		t.Errorf("blocks with chains [0 1 2] and [0 1 9] are equal")
	}
	if slices.Equal(a[512:1024], c[512:1024]) {
		t.Errorf("blocks with chains [0 1] and [5 1] are equal: the id alone must not decide")
	}
	if !slices.Equal(a, d[:1500]) {
		t.Errorf("a partial last block is not the prefix of the full block")
	}
	for _, tok := range a {
		if tok < 0 || tok >= DefaultVocab {
			t.Fatalf("token %d is outside [0, %d)", tok, DefaultVocab)
		}
	}
	other := mustTokens(t, Synthesizer{Seed: 1}, TraceRecord{InputLength: 1500, HashIDs: []int64{0, 1, 2}})
	if slices.Equal(a[:512], other[:512]) {
		t.Errorf("seeds 0 and 1 give the same tokens")
	}
}

// TestSynthesizerGolden pins the synthesis: pools hold keys computed from
// these tokens, so a change must be deliberate.
func TestSynthesizerGolden(t *testing.T) {
	got := mustTokens(t, Synthesizer{}, TraceRecord{InputLength: 4, HashIDs: []int64{0}})
	want := []int64{41073, 62282, 47318, 109151}
	if !slices.Equal(got, want) {
		t.Errorf("AppendTokens(ids [0], 4 tokens) = %v, want %v", got, want)
	}
	small := mustTokens(t, Synthesizer{Vocab: 3}, TraceRecord{InputLength: 600, HashIDs: []int64{4, 4}})
	seen := map[int64]bool{}
	for _, tok := range small {
		seen[tok] = true
	}
	if len(seen) != 3 || seen[3] {
		t.Errorf("tokens with Vocab 3 take values %v, want exactly 0, 1, 2", seen)
	}
}

func TestChainSeedsMatchTokens(t *testing.T) {
	var s Synthesizer
	rec := TraceRecord{InputLength: 1200, HashIDs: []int64{3, 1, 4}}
	tok := mustTokens(t, s, rec)
	seeds := s.ChainSeeds(nil, rec.HashIDs)
	if len(seeds) != 3 {
		t.Fatalf("ChainSeeds(%v) has %d seeds, want 3", rec.HashIDs, len(seeds))
	}
	for i, seed := range seeds {
		block := make([]int64, min(512, 1200-512*i))
		s.FillBlock(block, seed)
		if !slices.Equal(block, tok[512*i:512*i+len(block)]) {
			t.Errorf("FillBlock(seed %d) differs from block %d of AppendTokens", i, i)
		}
	}
}

func TestAppendTokensInvalid(t *testing.T) {
	dst := []int64{1, 2}
	got, err := Synthesizer{}.AppendTokens(dst, TraceRecord{InputLength: 600, HashIDs: []int64{0}})
	if err == nil || len(got) != 2 {
		t.Errorf("AppendTokens(1 id for 600 tokens) = %d tokens, %v, want dst unchanged and an error", len(got), err)
	}
}
