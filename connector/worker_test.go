package connector

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// plainStore hides the optional abilities of the store it wraps.
type plainStore struct{ pool.Store }

func newTestWorker(t *testing.T, store pool.Store, pages KVPages, mover PageMover) (*Worker, *Stats) {
	t.Helper()
	st := NewStats(0, nil, stats.NoRank, nil)
	w, err := NewWorker(WorkerOptions{Store: store, Keys: keys.Settings{Layout: testLayout, Namespace: testNS}, Pages: pages,
		Mover: mover, LoadStats: st.Load, SaveStats: st.Save})
	if err != nil {
		t.Fatal(err)
	}
	return w, st
}

func TestCountPrefixHit(t *testing.T) {
	base := newMem(t)
	c := chainOf(t, 20, 0)
	putBlocks(t, base, c, 0, 2)
	putBlocks(t, base, c, 3, 5)
	// Block 2 has only its layer-group-0 page: a block is present only
	// when every page is.
	putOne(t, base, testNS.PageKey(keys.Shard{World: 1}, testLayout.LayerGroups[0], testT, c.Hash(2)))
	tests := []struct {
		name        string
		store       pool.Store
		wantLeasing int
	}{
		{"leasing when the store can", &countingStore{Store: base}, 1},
		{"plain exist otherwise", plainStore{&countingStore{Store: base}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := newTestWorker(t, tt.store, newFakePages(testLayout, 1), nil)
			hit, present, err := w.CountPrefixHit(context.Background(), c.Hashes())
			if err != nil {
				t.Fatal(err)
			}
			if want := []bool{true, true, false, true, true}; hit != 2 || !cmp.Equal(present, want) {
				t.Errorf("CountPrefixHit = %d, %v, want 2, %v", hit, present, want)
			}
			cs := counting(tt.store)
			if cs.leasing != tt.wantLeasing || cs.leasing+cs.exists != 1 {
				t.Errorf("exist calls: %d leasing, %d plain; want %d leasing, one call in all", cs.leasing, cs.exists, tt.wantLeasing)
			}
		})
	}
}

func counting(s pool.Store) *countingStore {
	if p, ok := s.(plainStore); ok {
		s = p.Store
	}
	return s.(*countingStore)
}

func putOne(t *testing.T, s pool.Store, key string) {
	t.Helper()
	codes := make([]pool.Code, 1)
	if err := s.Put(context.Background(), []pool.PutItem{{Key: key, Value: []byte{1}}}, codes); err != nil || codes[0] != pool.OK {
		t.Fatalf("put %q: %v %v", key, err, codes[0])
	}
}

// testMovers are the page movers every worker test runs with.
func testMovers(t *testing.T) map[string]func(pool.Store) PageMover {
	return map[string]func(pool.Store) PageMover{
		"direct batch 3": func(s pool.Store) PageMover { return NewHostMover(s, 3, false, 0, 0) },
		"staged 2 slots": func(s pool.Store) PageMover { return NewHostMover(s, 64, true, 128, 64) },
		"device, batch 4": func(s pool.Store) PageMover {
			dev, err := cuda.Open("host")
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewDeviceMover(dev, s, PageSlots(testLayout, 0), DeviceMoverOptions{Batch: 4, StagingBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close(); dev.Close() })
			return m
		},
		"device, direct loads and saves": func(s pool.Store) PageMover {
			dev, err := cuda.Open("host")
			if err != nil {
				t.Fatal(err)
			}
			if cs, ok := s.(*countingStore); ok && cs.missing == nil {
				s = cs.Store // the mem pool itself: its arenas can be mapped
			}
			m, err := NewDeviceMover(dev, s, PageSlots(testLayout, 0), DeviceMoverOptions{Batch: 64, StagingBytes: 1 << 20, Direct: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close(); dev.Close() })
			return m
		},
	}
}

// saveThenLoad saves blocks of two requests from one page memory and loads
// them into another through mover.
func TestSaveThenLoadRoundTrip(t *testing.T) {
	movers := testMovers(t)
	for name, mk := range movers {
		t.Run(name, func(t *testing.T) {
			store := &countingStore{Store: newMem(t)}
			src, dst := newFakePages(testLayout, 4), newFakePages(testLayout, 4)
			ca, cb := chainOf(t, 8, 0), chainOf(t, 8, 100)
			src.fill(0, ca.Hash(0))
			src.fill(1, ca.Hash(1))
			src.fill(2, cb.Hash(0))
			m := &Meta{Saves: []Transfer{{"a", 0, ca.Hash(0), 0}, {"a", 1, ca.Hash(1), 1}, {"b", 0, cb.Hash(0), 2}}}
			w, st := newTestWorker(t, store, src, mk(store))
			if err := w.WaitForSave(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			want := []SubmittedSave{{"a", 0, 2}, {"b", 0, 1}}
			if diff := cmp.Diff(want, w.TakeSubmittedSaves()); diff != "" {
				t.Errorf("TakeSubmittedSaves (-want +got):\n%s", diff)
			}
			direct := strings.Contains(name, "direct") // the mover bypasses the counting store
			calls := store.puts + store.leasing        // each batch: a leasing exist, then a put
			if got := st.Save.Total(); got.Pages != 6 || !direct && got.StoreCalls != int64(calls) || got.FailedPages != 0 {
				t.Errorf("save stats pages %d, calls %d, failed %d; want 6, %d, 0", got.Pages, got.StoreCalls, got.FailedPages, calls)
			}
			lw, _ := newTestWorker(t, store, dst, mk(store))
			lm := &Meta{Loads: []Transfer{{"x", 0, ca.Hash(0), 3}, {"x", 1, ca.Hash(1), 2}, {"y", 0, cb.Hash(0), 0}}}
			if err := lw.StartLoadKV(context.Background(), lm); err != nil {
				t.Fatal(err)
			}
			if f := lw.TakeFailedLoadRequests(); len(f) != 0 {
				t.Errorf("failed loads %v, want none", f)
			}
			for _, pair := range [][2]int32{{0, 3}, {1, 2}, {2, 0}} {
				for s := range src.mem {
					if !bytes.Equal(src.Page(s, pair[0]), dst.Page(s, pair[1])) {
						t.Errorf("slot %d: block %d loaded into %d differs", s, pair[0], pair[1])
					}
				}
			}
			if wantCalls := (6 + lw.mover.MaxBatch() - 1) / lw.mover.MaxBatch(); !direct && store.gets != wantCalls {
				t.Errorf("%d get calls for 6 pages in batches of %d, want %d", store.gets, lw.mover.MaxBatch(), wantCalls)
			}
		})
	}
}

func TestStartLoadKVMissingPage(t *testing.T) {
	for name, mk := range testMovers(t) {
		t.Run(name, func(t *testing.T) { testMissingPage(t, mk) })
	}
}

func testMissingPage(t *testing.T, mk func(pool.Store) PageMover) {
	store := &countingStore{Store: newMem(t), missing: map[string]bool{}}
	ca, cb := chainOf(t, 8, 0), chainOf(t, 8, 100)
	putBlocks(t, store.Store, ca, 0, 2)
	putBlocks(t, store.Store, cb, 0, 1)
	store.missing[testNS.PageKey(keys.Shard{World: 1}, testLayout.LayerGroups[1], testT, ca.Hash(1))] = true
	pages := newFakePages(testLayout, 8)
	w, st := newTestWorker(t, store, pages, mk(store))
	m := &Meta{
		Loads: []Transfer{{"a", 0, ca.Hash(0), 0}, {"a", 1, ca.Hash(1), 1}, {"b", 0, cb.Hash(0), 2}},
		Saves: []Transfer{{"a", 2, keys.Hash{9}, 3}, {"b", 1, keys.Hash{8}, 4}},
	}
	pages.holds[4] = keys.Hash{8}
	if err := w.StartLoadKV(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if got := w.TakeFailedLoadRequests(); !cmp.Equal(got, []string{"a"}) {
		t.Errorf("TakeFailedLoadRequests = %v, want [a]", got)
	}
	if !m.Dropped("a") || m.Dropped("b") {
		t.Errorf("dropped saves: a %v, b %v; want a only", m.Dropped("a"), m.Dropped("b"))
	}
	if got := st.Load.Total(); got.FailedPages != 1 || got.Pages != 5 {
		t.Errorf("load stats pages %d failed %d, want 5 and 1", got.Pages, got.FailedPages)
	}
	// a's saves are dropped, so its uncomputed block 2 is not refused.
	if err := w.WaitForSave(context.Background(), m); err != nil {
		t.Fatalf("WaitForSave after the drop: %v", err)
	}
	if got := w.TakeSubmittedSaves(); !cmp.Equal(got, []SubmittedSave{{"b", 1, 2}}) {
		t.Errorf("TakeSubmittedSaves = %v, want b's block 1 only", got)
	}
}

func TestWaitForSaveRefusesUncomputed(t *testing.T) {
	c := chainOf(t, 8, 0)
	tests := []struct {
		name  string
		holds map[int32]keys.Hash
	}{
		{"never computed", map[int32]keys.Hash{}},
		{"holds another block", map[int32]keys.Hash{0: c.Hash(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &countingStore{Store: newMem(t)}
			pages := newFakePages(testLayout, 2)
			pages.holds = tt.holds
			w, _ := newTestWorker(t, store, pages, nil)
			err := w.WaitForSave(context.Background(), &Meta{Saves: []Transfer{{"a", 0, c.Hash(0), 0}}})
			if err == nil || store.puts != 0 {
				t.Errorf("WaitForSave of an uncomputed block = %v after %d puts, want an error and no put", err, store.puts)
			}
		})
	}
}

func TestWaitForSaveNeverOverwrites(t *testing.T) {
	store := newMem(t)
	c := chainOf(t, 4, 0)
	pages := newFakePages(testLayout, 2)
	pages.fill(0, c.Hash(0))
	first := bytes.Clone(pages.Page(0, 0))
	w, st := newTestWorker(t, store, pages, nil)
	m := &Meta{Saves: []Transfer{{"a", 0, c.Hash(0), 0}}}
	if err := w.WaitForSave(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	pages.Page(0, 0)[0] ^= 0xff
	if err := w.WaitForSave(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	key := testNS.PageKey(keys.Shard{World: 1}, testLayout.LayerGroups[0], testT, c.Hash(0))
	buf, n := [][]byte{make([]byte, 64)}, []int64{0}
	if err := store.Get(context.Background(), []string{key}, buf, n); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf[0], first) {
		t.Error("second save overwrote the stored page")
	}
	if got := st.Save.Total(); got.Pages != 4 || got.FailedPages != 0 {
		t.Errorf("save stats pages %d failed %d, want 4 (existing keys count as saved) and 0", got.Pages, got.FailedPages)
	}
}

// refusingStore fails every put with NoAvailableHandle.
type refusingStore struct{ pool.Store }

func (refusingStore) Put(_ context.Context, items []pool.PutItem, r []pool.Code) error {
	for i := range items {
		r[i] = pool.NoAvailableHandle
	}
	return nil
}

func TestWaitForSaveCountsFailedPuts(t *testing.T) {
	c := chainOf(t, 4, 0)
	pages := newFakePages(testLayout, 1)
	pages.fill(0, c.Hash(0))
	w, st := newTestWorker(t, refusingStore{newMem(t)}, pages, nil)
	if err := w.WaitForSave(context.Background(), &Meta{Saves: []Transfer{{"a", 0, c.Hash(0), 0}}}); err != nil {
		t.Fatalf("WaitForSave with failing puts = %v, want nil (failures are counted, not fatal)", err)
	}
	if got := st.Save.Total(); got.FailedPages != 2 || got.Pages != 0 {
		t.Errorf("save stats pages %d failed %d, want 0 and 2", got.Pages, got.FailedPages)
	}
	if got := w.TakeSubmittedSaves(); len(got) != 1 {
		t.Errorf("TakeSubmittedSaves = %v, want the save reported as submitted", got)
	}
}

func TestHostMoverStagedBatch(t *testing.T) {
	tests := []struct {
		batch         int
		staging, page int64
		want          int
	}{
		{64, 1 << 30, 64 << 10, 64},
		{64, 1 << 20, 64 << 10, 16},
		{64, 1000, 64 << 10, 1},
		{0, 1 << 20, 1024, 1},
	}
	for _, tt := range tests {
		m := NewHostMover(nil, tt.batch, true, tt.staging, tt.page)
		if got := m.MaxBatch(); got != tt.want {
			t.Errorf("NewHostMover(batch %d, staged, %d, %d).MaxBatch() = %d, want %d", tt.batch, tt.staging, tt.page, got, tt.want)
		}
	}
}

func TestPageSlots(t *testing.T) {
	l := keys.Layout{TokensPerBlock: 32, World: 2, Ranks: []int{0, 1},
		LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 100}, {ID: 3, BytesPerPage: 50}},
		Replicated:  []keys.LayerGroup{{ID: 7, BytesPerPage: 10}}}
	want := []PageSlot{
		{keys.LayerGroup{ID: 0, BytesPerPage: 100}, keys.Shard{World: 2, Rank: 1}, 100},
		{keys.LayerGroup{ID: 3, BytesPerPage: 50}, keys.Shard{World: 2, Rank: 1}, 50},
		{keys.LayerGroup{ID: 7, BytesPerPage: 10}, keys.Shard{Replicated: true}, 10},
	}
	got := PageSlots(l, 1)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PageSlots(rank 1) (-want +got):\n%s", diff)
	}
	if r := got[2].Rank(); r != -1 {
		t.Errorf("replicated slot Rank() = %d, want -1", r)
	}
}

// TestSaveSkipsPresentPages ports upstream's
// save_skips_pages_already_in_the_store (mooncake_store worker.py _put):
// each save batch runs the leasing batch exist first and puts only the
// pages absent, so a page already stored is not put again and is leased
// (a Remove without force is refused).
func TestSaveSkipsPresentPages(t *testing.T) {
	lg0 := testNS.PageKey(keys.Shard{World: 1}, testLayout.LayerGroups[0], testT, chainOf(t, 4, 0).Hash(0))
	tests := []struct {
		name       string
		plain      bool // the store cannot lease on exist
		stored     int  // pages of the block stored before the save: 0, 1 (layer group 0) or 2
		wantPuts   []int
		wantRemove pool.Code // a Remove without force of the layer-group-0 page after the save
	}{
		{"save_skips_pages_already_in_the_store", false, 1, []int{1}, pool.ObjectHasLease},
		{"every page present puts nothing", false, 2, nil, pool.ObjectHasLease},
		{"no page present puts both", false, 0, []int{2}, pool.OK},
		{"plain exist skips without leasing", true, 1, []int{1}, pool.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := newMem(t)
			c := chainOf(t, 4, 0)
			switch tt.stored {
			case 1:
				putOne(t, base, lg0)
			case 2:
				putBlocks(t, base, c, 0, 1)
			}
			cs := &countingStore{Store: base}
			var store pool.Store = cs
			if tt.plain {
				store = plainStore{cs}
			}
			pages := newFakePages(testLayout, 1)
			pages.fill(0, c.Hash(0))
			w, _ := newTestWorker(t, store, pages, nil)
			if err := w.WaitForSave(context.Background(), &Meta{Saves: []Transfer{{"a", 0, c.Hash(0), 0}}}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantPuts, cs.putKeys); diff != "" {
				t.Errorf("keys per put call (-want +got):\n%s", diff)
			}
			codes := make([]pool.Code, 1)
			if err := base.Remove(context.Background(), []string{lg0}, false, codes); err != nil {
				t.Fatal(err)
			}
			if codes[0] != tt.wantRemove {
				t.Errorf("Remove(%q, force false) = %v, want %v", lg0, codes[0], tt.wantRemove)
			}
		})
	}
}

// slowExistStore takes lag over every exist.
type slowExistStore struct {
	pool.Store
	lag time.Duration
}

func (s slowExistStore) Exist(ctx context.Context, k []string, st []int) error {
	time.Sleep(s.lag)
	return s.Store.Exist(ctx, k, st)
}

// A save's exist is a store call of the put: its time counts in the put
// phase, not in resolve (spelling the keys).
func TestSaveExistTimedAsPut(t *testing.T) {
	const lag = 100 * time.Millisecond
	c := chainOf(t, 4, 0)
	pages := newFakePages(testLayout, 1)
	pages.fill(0, c.Hash(0))
	w, st := newTestWorker(t, slowExistStore{Store: newMem(t), lag: lag}, pages, nil)
	if err := w.WaitForSave(context.Background(), &Meta{Saves: []Transfer{{"a", 0, c.Hash(0), 0}}}); err != nil {
		t.Fatal(err)
	}
	got := st.Save.Total().Phases
	if resolve, put := got[stats.PhaseResolve].Wall, got[stats.PhasePut].Wall; put < lag || resolve >= put {
		t.Errorf("save phases: resolve %v, put %v; want the exist's %v in put", resolve, put, lag)
	}
}
