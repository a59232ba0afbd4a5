package holes

import (
	"context"
	"testing"

	"github.com/kvctl/kvctl/keys"
)

// Eviction tears a chain that no later request looks up: the replay's own
// count meets no hole, the probe of the pool it leaves behind finds it.
func TestSimulateAfterProbeFindsUnmetHoles(t *testing.T) {
	k := keys.Settings{
		Scheme: keys.SchemeTRTLLM,
		Layout: keys.Layout{TokensPerBlock: 4, World: 1, Ranks: []int{0},
			LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 1024}}},
		Namespace: keys.Namespace{Name: "trtllm", ModelKey: "m"},
	}
	reqs, err := Prepare(context.Background(), sliceSource{
		{ID: "A", Tokens: seq(25, 0), ArrivalMS: 0},
		{ID: "B", Tokens: append(seq(8, 0), seq(17, 100)...), ArrivalMS: 20_000},
	}, k)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Simulate(context.Background(), reqs, SimOptions{Keys: k, PutBatch: 1, OpenPool: memPool(1)}, 10*1024)
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.Holes != 0 {
		t.Errorf("holes met by lookups = %d, want 0 (no request looks up A again)", run.Summary.Holes)
	}
	if run.After == nil {
		t.Fatal("no probe after the replay")
	}
	if run.After.Holes < 1 || run.After.BehindHoleBlocks < 1 {
		t.Errorf("probe after the replay = %+v, want A's torn chain: a hole with stored blocks behind it", *run.After)
	}
	if run.After.Requests != 2 || run.After.Blocks != 12 {
		t.Errorf("probe after the replay covers %d requests, %d blocks; want 2 and 12 (every full block)", run.After.Requests, run.After.Blocks)
	}
}
