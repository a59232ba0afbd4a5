package holes

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool/mem"
)

// TestProbePrompt maps request A of the scenario as Probe does, and gives
// each of its page keys' statuses: those of the partial blocks too.
func TestProbePrompt(t *testing.T) {
	reqs, stored := scenario(t)
	st, _ := mem.New(mem.Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 1 << 20, Eviction: mem.EvictManual})
	defer st.Close()
	fill(t, st, stored)
	got, err := ProbePrompt(context.Background(), st, testSettings(), reqs[0].Tokens)
	if err != nil {
		t.Fatal(err)
	}
	want := wantReport().Requests[0]
	want.ID = ""
	if diff := cmp.Diff(want, got.Holes); diff != "" {
		t.Errorf("ProbePrompt(A).Holes (-want +got):\n%s", diff)
	}
	k := testSettings()
	hashes, _ := k.Hashes(keys.Scope{}, reqs[0].Tokens)
	var wantKeys []string
	for _, h := range hashes {
		wantKeys = k.AppendBlockKeys(wantKeys, h)
	}
	if diff := cmp.Diff(wantKeys, got.Keys); diff != "" {
		t.Errorf("ProbePrompt(A).Keys (-want +got):\n%s", diff)
	}
	isStored := map[string]bool{}
	for _, s := range stored {
		isStored[s] = true
	}
	for i, key := range got.Keys {
		if want := map[bool]int{true: 1, false: 0}[isStored[key]]; got.Status[i] != want {
			t.Errorf("ProbePrompt(A).Status[%d] (%s) = %d, want %d", i, key, got.Status[i], want)
		}
	}
}

// TestProbePromptScope keys the prompt under the settings' scope: a cache
// salt makes other keys, which the pool does not hold.
func TestProbePromptScope(t *testing.T) {
	reqs, stored := scenario(t)
	st, _ := mem.New(mem.Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 1 << 20, Eviction: mem.EvictManual})
	defer st.Close()
	fill(t, st, stored)
	k := testSettings()
	k.Scope.CacheSalt = "salt"
	got, err := ProbePrompt(context.Background(), st, k, reqs[0].Tokens)
	if err != nil {
		t.Fatal(err)
	}
	if got.Holes.Map != ".........." {
		t.Errorf("ProbePrompt(A, salted).Holes.Map = %q, want %q", got.Holes.Map, "..........")
	}
}

func TestProbePromptNeedsModelKey(t *testing.T) {
	k := testSettings()
	k.Namespace.ModelKey = ""
	st, _ := mem.New(mem.Options{Capacity: 1 << 20, Segments: 1, ArenaSize: 1 << 20})
	defer st.Close()
	if _, err := ProbePrompt(context.Background(), st, k, seq(8, 0)); err == nil {
		t.Error("ProbePrompt without a model key succeeded")
	}
}
