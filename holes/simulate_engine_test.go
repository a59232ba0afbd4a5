package holes

import (
	"context"
	"strings"
	"testing"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
)

// An unbounded pool keyed as another engine's connector reuses exactly the
// trace's ideal prefix reuse, each block stored under its KeysPerBlock
// keys of KeyBytes each.
func TestSimulateEnginesUnboundedMatchesIdeal(t *testing.T) {
	seed := "0"
	layout := keys.Layout{TokensPerBlock: 32, World: 2, Ranks: []int{0, 1}}
	for _, s := range []keys.Settings{
		{Engine: keys.EngineSGLang, Layout: layout, Namespace: keys.Namespace{ModelKey: "org/m"}},
		{Engine: keys.EngineVLLM, Engines: keys.EngineOptions{HashSeed: &seed}, Layout: layout, Namespace: keys.Namespace{ModelKey: "m"}},
	} {
		src, err := workload.Open(traceHead, workload.FormatAuto)
		if err != nil {
			t.Fatal(err)
		}
		reqs, err := Prepare(context.Background(), src, s)
		if err != nil {
			t.Fatal(err)
		}
		ideal, err := workload.IdealPrefixReuse(src, 32)
		if err != nil {
			t.Fatal(err)
		}
		run, err := Simulate(context.Background(), reqs, SimOptions{Keys: s, OpenPool: memPool(0), KeyBytes: 1000}, 1<<40)
		if err != nil {
			t.Fatal(err)
		}
		if got := run.Summary.HitBlocks * 32; got != ideal.ReusableTokens || run.Summary.Holes != 0 {
			t.Errorf("Simulate(%s) hit tokens = %d, %d holes; want the ideal %d, none", s.Engine, got, run.Summary.Holes, ideal.ReusableTokens)
		}
		if perKey := run.Pool.UsedBytes / int64(run.Pool.Keys); perKey != 1000 || run.Pool.Keys%int64(s.KeysPerBlock()) != 0 {
			t.Errorf("Simulate(%s) stored %d keys of %d bytes, want keys of 1000 bytes, %d a block", s.Engine, run.Pool.Keys, perKey, s.KeysPerBlock())
		}
	}
}

func TestSimulateEngineRefusals(t *testing.T) {
	s := keys.Settings{Engine: keys.EngineSGLang, Layout: keys.Layout{TokensPerBlock: 4, World: 1, Ranks: []int{0}}}
	reqs, err := Prepare(context.Background(), sliceSource{{ID: "r", Tokens: seq(8, 1)}}, s)
	if err != nil || len(reqs) != 1 || len(reqs[0].Blocks) != 2 {
		t.Fatalf("Prepare(sglang) = %+v, %v; want one request of 2 blocks", reqs, err)
	}
	if _, err := Simulate(context.Background(), reqs, SimOptions{Keys: s, OpenPool: memPool(0)}, 1<<20); err == nil || !strings.Contains(err.Error(), "KeyBytes") {
		t.Errorf("Simulate(sglang, no KeyBytes) = %v, want an error naming KeyBytes", err)
	}
	s.Engine = keys.EngineDynamo
	if _, err := Prepare(context.Background(), sliceSource{{ID: "r", Tokens: seq(8, 1)}}, s); err == nil || !strings.Contains(err.Error(), "no pool") {
		t.Errorf("Prepare(dynamo) = %v, want an error saying it keeps no pool", err)
	}
}
