package connector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

func TestFaultsValidate(t *testing.T) {
	tests := []struct {
		f  Faults
		ok bool
	}{
		{Faults{}, true},
		{Faults{MissingRate: 1, PutErrorRate: 0.5, PoolLatency: time.Millisecond}, true},
		{Faults{MissingRate: -0.1}, false},
		{Faults{PutErrorRate: 1.1}, false},
		{Faults{PoolLatency: -1}, false},
		{Faults{PoolLatency: MaxFaultPoolLatency}, true},
		{Faults{PoolLatency: MaxFaultPoolLatency + 1}, false},
	}
	for _, tt := range tests {
		err := tt.f.Validate()
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrBadConfig)) {
			t.Errorf("%+v.Validate() = %v, want ok %v (or ErrBadConfig)", tt.f, err, tt.ok)
		}
	}
}

// missingAfterLoads loads 40 stored keys through a fault mover and returns
// which ones came back missing, and the mover's counts.
func missingAfterLoads(t *testing.T, f Faults) ([]bool, FaultCounts, int) {
	t.Helper()
	store := newMem(t)
	var ks []string
	for i := range 40 {
		k := fmt.Sprintf("k%d", i)
		putOne(t, store, k)
		ks = append(ks, k)
	}
	m := NewFaultMover(NewHostMover(store, 64, false, 0, 0), store, f)
	pages := make([][]byte, len(ks))
	for i := range pages {
		pages[i] = make([]byte, 8)
	}
	n := make([]int64, len(ks))
	if err := m.Load(context.Background(), &stats.PhaseTimer{}, ks, pages, n); err != nil {
		t.Fatal(err)
	}
	status := make([]int, len(ks))
	if err := store.Exist(context.Background(), ks, status); err != nil {
		t.Fatal(err)
	}
	missing, gone := make([]bool, len(ks)), 0
	for i := range ks {
		missing[i] = n[i] == int64(pool.ObjectNotFound)
		if status[i] != 1 {
			gone++
		}
	}
	return missing, m.Counts(), gone
}

func TestFaultMoverMissingPages(t *testing.T) {
	f := Faults{MissingRate: 0.3, Seed: 7}
	missing, counts, gone := missingAfterLoads(t, f)
	got := 0
	for _, m := range missing {
		if m {
			got++
		}
	}
	if got == 0 || got == len(missing) || int64(got) != counts.MissingPages || gone != got {
		t.Errorf("missing %d of %d pages, counted %d, gone from the pool %d; want some, all equal",
			got, len(missing), counts.MissingPages, gone)
	}
	again, _, _ := missingAfterLoads(t, f)
	if !cmp.Equal(missing, again) {
		t.Errorf("same seed, different missing pages: %v then %v", missing, again)
	}
	if none, c, _ := missingAfterLoads(t, Faults{Seed: 7}); c.MissingPages != 0 || slices.Contains(none, true) {
		t.Errorf("no missing rate: %d pages missing (%v), want none", c.MissingPages, none)
	}
}

func TestFaultMoverPutErrors(t *testing.T) {
	store := newMem(t)
	m := NewFaultMover(NewHostMover(store, 64, true, 64*16, 16), store, Faults{PutErrorRate: 0.5, Seed: 3})
	items := make([]pool.PutItem, 30)
	var ks []string
	for i := range items {
		items[i] = pool.PutItem{Key: fmt.Sprintf("p%d", i), Value: make([]byte, 16)}
		ks = append(ks, items[i].Key)
	}
	codes := make([]pool.Code, len(items))
	if err := m.Save(context.Background(), &stats.PhaseTimer{}, items, codes); err != nil {
		t.Fatal(err)
	}
	status := make([]int, len(ks))
	if err := store.Exist(context.Background(), ks, status); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for i, c := range codes {
		stored := status[i] == 1
		if (c == pool.OK) != stored || (c != pool.OK && c != pool.TransferFail) {
			t.Errorf("put %d: code %v, stored %v; want OK and stored, or TransferFail and not", i, c, stored)
		}
		if c == pool.TransferFail {
			failed++
		}
	}
	if failed == 0 || failed == len(items) || int64(failed) != m.Counts().PutErrors {
		t.Errorf("%d of %d puts failed, counted %d; want some, not all, counted", failed, len(items), m.Counts().PutErrors)
	}
}

func TestPoolLatencyIsAdded(t *testing.T) {
	const delay = 2 * time.Millisecond
	store := newMem(t)
	m := NewFaultMover(NewHostMover(store, 4, false, 0, 0), store, Faults{PoolLatency: delay})
	p := SlowProber{Prober: &fixedProber{present: []bool{true}}, Delay: delay}
	calls := map[string]func() error{
		"load": func() error {
			return m.Load(context.Background(), &stats.PhaseTimer{}, []string{"x"}, [][]byte{make([]byte, 4)}, make([]int64, 1))
		},
		"save": func() error {
			return m.Save(context.Background(), &stats.PhaseTimer{}, []pool.PutItem{{Key: "x", Value: make([]byte, 4)}}, make([]pool.Code, 1))
		},
		"lookup": func() error {
			hit, _, err := p.CountPrefixHit(context.Background(), []keys.Hash{{1}})
			if err == nil && hit != 1 {
				err = fmt.Errorf("hit %d, want 1", hit)
			}
			return err
		},
	}
	for name, call := range calls {
		start := time.Now()
		if err := call(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if took := time.Since(start); took < delay {
			t.Errorf("%s took %v, want at least the %v latency", name, took, delay)
		}
	}
}

// TestStartLoadKVFatalUnderTP: a TP rank cannot restart alone, so a missing
// page fails the pass with the upstream message.
func TestStartLoadKVFatalUnderTP(t *testing.T) {
	store := &countingStore{Store: newMem(t), missing: map[string]bool{}}
	l := testLayout
	l.World, l.Ranks = 2, []int{0, 1}
	ca := chainOf(t, 8, 0)
	var items []pool.PutItem
	for b := range 2 {
		for _, s := range PageSlots(l, 1) {
			items = append(items, pool.PutItem{Key: testNS.PageKey(s.Shard, s.LayerGroup, testT, ca.Hash(b)), Value: make([]byte, s.Bytes)})
		}
	}
	if err := store.Put(context.Background(), items, make([]pool.Code, len(items))); err != nil {
		t.Fatal(err)
	}
	store.missing[items[1].Key] = true
	w, err := NewWorker(WorkerOptions{Store: store, Keys: keys.Settings{Layout: l, Namespace: testNS}, Rank: 1, Pages: newFakePages(testLayout, 4)})
	if err != nil {
		t.Fatal(err)
	}
	m := &Meta{Loads: []Transfer{{"a", 0, ca.Hash(0), 0}, {"a", 1, ca.Hash(1), 1}}}
	err = w.StartLoadKV(context.Background(), m)
	var lf *LoadFailedError
	want := "failed to load 1 of 4 pages; the affected KV slots were already reported as computed"
	if !errors.As(err, &lf) || lf.Error() != want {
		t.Errorf("StartLoadKV with a missing shard = %v, want %q", err, want)
	}
}
