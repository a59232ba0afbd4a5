package engine

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
)

// TestArrivalBatchHashesAsOneByOne: a batch's arrivals are what
// hashArrivalWith makes of each request alone, prompt and output: requests
// of other scopes, of no tokens, of a prompt longer than the batch's token
// room and of a scope whose chain cannot be made (its error kept, the
// others hashed), through batches ended by their count and by their room.
func TestArrivalBatchHashesAsOneByOne(t *testing.T) {
	k := keysWithDefaults(keys.Settings{})
	errScope := errors.New("no chain for this scope")
	newChain := func(s keys.Scope) (*keys.Chain, error) {
		if s.CacheSalt == "refused" {
			return nil, errScope
		}
		return k.NewChain(s)
	}
	var reqs []workload.Request
	for i := range 3*arrivalBatch + 5 {
		r := workload.Request{ID: fmt.Sprint("r", i), Tokens: tokensOf(i, 7*i+3), OutputLength: i % 70, CacheSalt: fmt.Sprint("salt", i%3)}
		switch i {
		case 4:
			r.Tokens = nil
		case 9:
			r.CacheSalt = "refused"
		case 40, 41:
			r.Tokens = tokensOf(i, arrivalBatchTokens/2+100)
		case 70:
			r.Tokens = tokensOf(i, arrivalBatchTokens+1000)
		}
		reqs = append(reqs, r)
	}
	var b arrivalBatcher
	var got []arrival
	for _, r := range reqs {
		if !b.fits(r) {
			got = append(got, b.hash(newChain)...)
		}
		buf := slices.Clone(r.Tokens)
		r.Tokens = buf
		b.add(r)
		clear(buf) // the source reuses its buffer
	}
	got = append(got, b.hash(newChain)...)
	if len(got) != len(reqs) {
		t.Fatalf("%d arrivals, want %d", len(got), len(reqs))
	}
	for i, w := range reqs {
		want := hashArrivalWith(newChain, w)
		g := got[i]
		if g.w.ID != w.ID || g.promptLen != want.promptLen || g.seed != want.seed || !errors.Is(g.err, want.err) {
			t.Fatalf("request %d: id %q, length %d, seed %d, err %v; want %q, %d, %d, %v", i, g.w.ID, g.promptLen, g.seed, g.err, w.ID, want.promptLen, want.seed, want.err)
		}
		if want.chain == nil {
			if g.chain != nil {
				t.Errorf("request %d: a chain where none can be made", i)
			}
			continue
		}
		decode := make([]int64, max(1, w.OutputLength))
		for j := range decode {
			decode[j] = NextToken(want.seed, want.promptLen+j)
		}
		if !slices.Equal(g.chain.Hashes(), want.chain.Hashes()) {
			t.Errorf("request %d: prompt hashes differ from its own", i)
		}
		g.chain.Extend(decode)
		want.chain.Extend(decode)
		if !slices.Equal(g.chain.Hashes(), want.chain.Hashes()) {
			t.Errorf("request %d: output hashes differ from its own", i)
		}
	}
}
