package holes

import (
	"context"
	"testing"

	"github.com/kvctl/kvctl/pool/mem"
)

// Probe and Simulate count "blocks" by one definition (keys.FullBlocks):
// a prompt of exactly k blocks has k, although a lookup examines k-1.
func TestProbeAndSimulateCountBlocksAlike(t *testing.T) {
	s := traceSettings()
	reqs := sliceSource{
		{ID: "exact", Tokens: seq(64, 0)}, // 2 blocks of 32, 1 offerable
		{ID: "plus-one", Tokens: seq(65, 1000)},
		{ID: "short", Tokens: seq(31, 5000)},
	}
	const want = 2 + 2 + 0
	st, err := mem.New(mem.Options{Capacity: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := Probe(context.Background(), st, "mem://", reqs, ProbeOptions{Keys: s})
	if err != nil {
		t.Fatal(err)
	}
	prep, err := Prepare(context.Background(), reqs, s)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Simulate(context.Background(), prep, SimOptions{Keys: s, OpenPool: memPool(0)}, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Blocks != want || run.Summary.Blocks != want {
		t.Errorf("blocks: Probe = %d, Simulate = %d, want %d both", rep.Summary.Blocks, run.Summary.Blocks, want)
	}
	if got, wantLooked := run.Summary.LookedUpBlocks, int64(1+2); got != wantLooked {
		t.Errorf("Simulate looked_up_blocks = %d, want %d (never the block holding the last token)", got, wantLooked)
	}
}
