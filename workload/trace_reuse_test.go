package workload

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sliceSource serves fixed requests.
type sliceSource []Request

func (s sliceSource) Name() string { return "slice" }

func (s sliceSource) Each(fn func(Request) error) error {
	for _, r := range s {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func TestIdealPrefixReuse(t *testing.T) {
	src := sliceSource{
		{ID: "a", Tokens: []int64{1, 2, 3, 4, 5, 6, 7}},       // stores [1 2] [3 4] [5 6]
		{ID: "b", Tokens: []int64{1, 2, 3, 4, 5, 6}},          // may offer (6-1)/2 = 2 blocks: 4 tokens
		{ID: "c", Tokens: []int64{1, 2, 9, 9, 5, 6, 7, 8}},    // [1 2] hits, [9 9] misses: 2
		{ID: "d", Tokens: []int64{1, 2, 3, 4, 5, 6, 7, 8}},    // 3 of (8-1)/2 = 3 blocks: 6
		{ID: "e", Tokens: []int64{3, 4, 5, 6}},                // [3 4] alone is a new chain: 0
		{ID: "f", Tokens: []int64{1}},                         // no full block: 0
		{ID: "g", Tokens: []int64{1, 2, 9, 9, 5, 6, 7, 8, 0}}, // c stored all four blocks: 8
	}
	got, err := IdealPrefixReuse(src, 2)
	want := Reuse{TokensPerBlock: 2, Requests: 7, PromptTokens: 43, ReusableTokens: 20, Fraction: 20.0 / 43}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("IdealPrefixReuse(src, 2) = %+v, %v, want %+v", got, err, want)
	}
	if _, err := IdealPrefixReuse(src, 0); err == nil {
		t.Errorf("IdealPrefixReuse(src, 0) = nil error, want one")
	}
	empty, err := IdealPrefixReuse(sliceSource{}, 32)
	if err != nil || empty.Fraction != 0 || empty.TokensPerBlock != 32 {
		t.Errorf("IdealPrefixReuse(empty, 32) = %+v, %v, want zero reuse", empty, err)
	}
}

// reuseFromIDs computes the ideal reuse of a Mooncake trace from its hash
// ids alone: for T dividing 512, T-block k is identified by the id chain up
// to the trace block holding its last token and its end within that block.
func reuseFromIDs(recs []TraceRecord, t int64) int64 {
	type blockID struct {
		seed uint64
		end  int64
	}
	stored := map[blockID]bool{}
	var s Synthesizer
	total := int64(0)
	for _, rec := range recs {
		seeds := s.ChainSeeds(nil, rec.HashIDs)
		n := rec.InputLength
		id := func(k int64) blockID {
			last := ((k+1)*t - 1) / TraceBlockTokens
			return blockID{seeds[last], (k+1)*t - last*TraceBlockTokens}
		}
		hits := int64(0)
		for hits < (n-1)/t && stored[id(hits)] {
			hits++
		}
		for k := int64(0); k < n/t; k++ {
			stored[id(k)] = true
		}
		total += hits * t
	}
	return total
}

func TestIdealPrefixReuseOfTraceHead(t *testing.T) {
	src, err := Open(headTrace, FormatMooncake)
	if err != nil {
		t.Fatal(err)
	}
	recs := readHead(t)
	for _, tpb := range []int{32, 64, 512} {
		got, err := IdealPrefixReuse(src, tpb)
		if err != nil {
			t.Fatal(err)
		}
		want := reuseFromIDs(recs, int64(tpb))
		if got.ReusableTokens != want || got.Requests != 200 || math.IsNaN(got.Fraction) || want == 0 {
			t.Errorf("IdealPrefixReuse(head, %d) = %+v, want %d reusable tokens (from the hash ids)", tpb, got, want)
		}
	}
}
