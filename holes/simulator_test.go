package holes

import (
	"context"
	"testing"
	"time"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/pool/replay"
)

// recordingPool is a simulated pool that records the keys of every put.
type recordingPool struct {
	*mem.Store
	puts []string
}

func (p *recordingPool) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	for _, it := range items {
		p.puts = append(p.puts, it.Key)
	}
	return p.Store.Put(ctx, items, results)
}

// tinySettings are 4-token blocks of one 1 KiB page.
func tinySettings() keys.Settings {
	return keys.Settings{
		Scheme: keys.SchemeTRTLLM,
		Layout: keys.Layout{TokensPerBlock: 4, World: 1, Ranks: []int{0},
			LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 1024}}},
		Namespace: keys.Namespace{Name: "trtllm", ModelKey: "m"},
	}
}

// newRecordingSimulator opens a 1 MiB recording pool on clock and a
// simulator over it, evicting at the clock's ticks.
func newRecordingSimulator(t *testing.T, k keys.Settings, clock *replay.Clock) (*simulator, *recordingPool) {
	t.Helper()
	st, err := mem.New(mem.Options{Capacity: 1 << 20, Segments: 1, MetadataOnly: true, Eviction: mem.EvictManual, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p := &recordingPool{Store: st}
	sim, err := newSimulator(SimOptions{Keys: k}, p)
	if err != nil {
		t.Fatal(err)
	}
	clock.OnTick(p.EvictNow)
	return sim, p
}

// A save batch runs the leasing exist first and puts only the absent
// pages, as the connector's _put: a request whose chain lost its head
// puts that page alone, and the present pages it saves get a lease.
func TestSimulatorSavePutsOnlyAbsentPages(t *testing.T) {
	ctx := context.Background()
	k := tinySettings()
	hashes, err := k.Hashes(keys.Scope{}, seq(12, 0))
	if err != nil {
		t.Fatal(err)
	}
	r := Prepared{ID: "A", PromptTokens: 12, Hashes: hashes}
	clock := replay.NewClock()
	sim, p := newRecordingSimulator(t, k, clock)
	if err := sim.request(ctx, r); err != nil {
		t.Fatal(err)
	}
	head, last := k.AppendBlockKeys(nil, hashes[0])[0], k.AppendBlockKeys(nil, hashes[2])[0]
	clock.Advance(time.Minute) // every lease of the first request has expired
	if err := p.Remove(ctx, []string{head}, false, make([]pool.Code, 1)); err != nil {
		t.Fatal(err)
	}
	p.puts = nil
	if err := sim.request(ctx, r); err != nil {
		t.Fatal(err)
	}
	if len(p.puts) != 1 || p.puts[0] != head {
		t.Errorf("keys put by the second request = %q, want only the missing head %q", p.puts, head)
	}
	// The last block is never looked up (it holds the last prompt token):
	// only the save's exist leases it.
	codes := make([]pool.Code, 1)
	if err := p.Remove(ctx, []string{last}, false, codes); err != nil {
		t.Fatal(err)
	}
	if codes[0] != pool.ObjectHasLease {
		t.Errorf("Remove(last block, no force) after the save = %v, want %v (the save's exist leased it)", codes[0], pool.ObjectHasLease)
	}
}
