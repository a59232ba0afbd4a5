package connector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
)

// TestTakeLoadsThenLoadAsync: a parked request's loads are taken once, not
// emitted again by BuildMeta, and LoadAsync reports whether they landed
// without touching take_failed_load_requests.
func TestTakeLoadsThenLoadAsync(t *testing.T) {
	store := &countingStore{Store: newMem(t), missing: map[string]bool{}}
	c := chainOf(t, 13, 0)
	putBlocks(t, store.Store, c, 0, 3)
	pages := newFakePages(testLayout, 8)
	w, _ := newTestWorker(t, store, pages, nil)
	s := NewScheduler(SchedulerOptions{Loads: true, Saves: true}, w)
	r := &Request{ID: "a", Chain: c, NumTokens: 13, Blocks: []int32{5, 6, 7}}
	if _, err := s.TakeLoads(nil, r); err == nil {
		t.Error("TakeLoads before the request was settled = nil error, want an error")
	}
	got, err := s.GetNumNewMatchedTokens(context.Background(), r, 0)
	if err != nil || got != 12 {
		t.Fatalf("GetNumNewMatchedTokens = %d, %v; want 12", got, err)
	}
	if err := s.UpdateStateAfterAlloc(r, 0, 0, 8); err != nil {
		t.Fatal(err)
	}
	loads, err := s.TakeLoads(nil, r)
	want := []Transfer{{"a", 0, c.Hash(0), 5}, {"a", 1, c.Hash(1), 6}}
	if err != nil || !cmp.Equal(loads, want) {
		t.Fatalf("TakeLoads = %v, %v; want %v", loads, err, want)
	}
	m, err := s.BuildMeta([]Scheduled{{Req: r, Computed: 8, NumScheduled: 5}})
	if err != nil || len(m.Loads) != 0 {
		t.Errorf("BuildMeta after TakeLoads: %d loads, %v; want none", len(m.Loads), err)
	}
	if ok, err := w.LoadAsync(context.Background(), loads); !ok || err != nil {
		t.Errorf("LoadAsync of stored blocks = %v, %v; want true", ok, err)
	}
	store.missing[testNS.PageKey(keys.Shard{World: 1}, testLayout.LayerGroups[0], testT, c.Hash(1))] = true
	if ok, err := w.LoadAsync(context.Background(), loads); ok || err != nil {
		t.Errorf("LoadAsync with a missing page = %v, %v; want false", ok, err)
	}
	if f := w.TakeFailedLoadRequests(); len(f) != 0 {
		t.Errorf("TakeFailedLoadRequests after async loads = %v, want none", f)
	}
}
