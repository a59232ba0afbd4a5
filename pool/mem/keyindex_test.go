package mem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// indexObjects makes an object for each key, as a put's claim finds them.
func indexObjects(keys []string) []*object {
	objs := make([]*object, len(keys))
	for i, k := range keys {
		objs[i] = &object{key: k, seg: -1}
	}
	return objs
}

// checkIndexHolds compares every lookup of keys, one by one and in runs,
// and the index's walk and count with want.
func checkIndexHolds(t *testing.T, x *keyIndex, keys []string, want map[string]*object, step string) {
	t.Helper()
	for start := 0; start < len(keys); start += lookupRun {
		run := keys[start:min(start+lookupRun, len(keys))]
		got := make([]*object, len(run))
		x.loadRun(run, got)
		for i, k := range run {
			if got[i] != want[k] || x.load(k) != want[k] {
				t.Fatalf("%s: %q found %p in a run and %p alone, want %p", step, k, got[i], x.load(k), want[k])
			}
		}
	}
	seen := 0
	x.each(func(o *object) {
		if want[o.key] != o {
			t.Fatalf("%s: the walk met %q, not in the index", step, o.key)
		}
		seen++
	})
	if seen != len(want) || x.len() != int64(len(want)) {
		t.Fatalf("%s: the walk met %d objects and len() = %d, want %d", step, seen, x.len(), len(want))
	}
}

// Keys in chains many objects long (a table of minIndexHeads heads for
// 16 times as many keys) are inserted once, found, removed from the head,
// the middle and the end of their chains, and found again after the
// table grows.
func TestKeyIndexChains(t *testing.T) {
	x := newKeyIndex(0)
	keys := keysN("chain/", 16*minIndexHeads)
	want := map[string]*object{}
	for _, o := range indexObjects(keys) {
		if !x.insert(o) {
			t.Fatalf("insert(%q) = false on an empty index", o.key)
		}
		want[o.key] = o
	}
	if x.insert(&object{key: keys[7]}) {
		t.Fatalf("insert(%q) = true, but the key is there", keys[7])
	}
	if !x.needsTending(0) {
		t.Fatal("needsRoom(0) = false, with 16 keys a head")
	}
	checkIndexHolds(t, x, keys, want, "inserted")

	rng := rand.New(rand.NewPCG(3, 4))
	for _, i := range rng.Perm(len(keys))[:len(keys)/2] {
		x.remove(want[keys[i]])
		x.remove(want[keys[i]]) // a second time: not there, nothing happens
		delete(want, keys[i])
	}
	checkIndexHolds(t, x, keys, want, "half removed")

	before := len(x.heads)
	x.tend(0)
	if len(x.heads) < 2*before || x.needsTending(0) {
		t.Fatalf("makeRoom: %d heads from %d, needsRoom %t; want it doubled and not crowded", len(x.heads), before, x.needsTending(0))
	}
	checkIndexHolds(t, x, keys, want, "grown")
	if !x.needsTending(len(x.heads)) {
		t.Fatalf("needsRoom(%d) = false, a call as large as the table", len(x.heads))
	}
	x.tend(len(x.heads))
	checkIndexHolds(t, x, keys, want, "grown for a call")
}

// Lookups without a lock find every key that stays in the index while
// other goroutines insert and remove keys of the same chains: a lookup
// walking past an object being removed still reaches the rest of its
// chain (run with -race).
func TestKeyIndexLookupsDuringChanges(t *testing.T) {
	x := newKeyIndex(0)
	stay := indexObjects(keysN("stay/", 4*minIndexHeads))
	for _, o := range stay {
		x.insert(o)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 2 {
		churn := indexObjects(keysN(fmt.Sprintf("churn%d/", w), 4*minIndexHeads))
		wg.Go(func() {
			for {
				for _, o := range churn {
					x.insert(o)
				}
				for _, o := range churn {
					select {
					case <-stop:
						return
					default:
					}
					x.remove(o)
				}
				churn = indexObjects(keysN(fmt.Sprintf("churn%d/", w), 4*minIndexHeads))
			}
		})
	}
	keys := make([]string, len(stay))
	for i, o := range stay {
		keys[i] = o.key
	}
	got := make([]*object, lookupRun)
	for round := range 20 {
		for start := 0; start < len(keys); start += lookupRun {
			run := keys[start:min(start+lookupRun, len(keys))]
			x.loadRun(run, got)
			for i := range run {
				if got[i] != stay[start+i] {
					close(stop)
					wg.Wait()
					t.Fatalf("round %d: %q not found while other keys came and went", round, run[i])
				}
			}
		}
	}
	close(stop)
	wg.Wait()
}

// A put of more keys than the index was sized for grows it first, so that
// its chains stay short.
func TestPutGrowsIndex(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 64 << 20, MetadataOnly: true})
	const n = 64 * minIndexHeads
	items := make([]pool.PutItem, n)
	for i, k := range keysN("big/", n) {
		items[i] = pool.PutItem{Key: k, Size: 64}
	}
	if err := s.Put(context.Background(), items, make([]pool.Code, n)); err != nil {
		t.Fatalf("Put = %v", err)
	}
	if heads := len(s.index.heads); heads < n/maxIndexLoad {
		t.Errorf("after a put of %d keys the index has %d heads, want at least %d", n, heads, n/maxIndexLoad)
	}
}

// An object taken out while lookups may walk past it keeps its link until
// the index is tended; one dropped with the index alone loses it at once.
// Dead objects' links would keep other objects' slabs alive.
func TestKeyIndexDeadObjectsLoseTheirLinks(t *testing.T) {
	x := newKeyIndex(0)
	objs := indexObjects(keysN("dead/", 8*minIndexHeads))
	for _, o := range objs {
		x.insert(o)
	}
	// Removed while lookups may run, newest first, as chains' heads with
	// links; those that had one keep it.
	var linked []*object
	for i := len(objs) - 1; i >= len(objs)/2; i-- {
		if o := objs[i]; o.next.Load() != nil {
			linked = append(linked, o)
		}
		x.remove(objs[i])
	}
	if len(linked) == 0 {
		t.Fatal("no object removed had a link")
	}
	for _, o := range linked {
		if o.next.Load() == nil {
			t.Fatalf("%q lost its link at once, a lookup walking past it would stop", o.key)
		}
	}
	if !x.needsTending(0) {
		t.Fatal("needsTending(0) = false, with objects retired")
	}
	x.tend(0)
	for _, o := range objs[len(objs)/2:] {
		if o.next.Load() != nil {
			t.Fatalf("%q keeps its link after tend", o.key)
		}
	}
	for i := range x.stripes {
		if kept := x.stripes[i].retired; slices.ContainsFunc(kept[:cap(kept)], func(o *object) bool { return o != nil }) {
			t.Fatalf("stripe %d's retired list still holds objects after tend", i)
		}
	}
	y := newKeyIndex(0) // no tend: the newest objects lead their chains
	dropped := indexObjects(keysN("dropped/", 8*minIndexHeads))
	for _, o := range dropped {
		y.insert(o)
	}
	hadLinks := 0
	for _, o := range slices.Backward(dropped) {
		if o.next.Load() != nil {
			hadLinks++
		}
		y.drop(o)
		if o.next.Load() != nil {
			t.Fatalf("%q keeps its link after drop", o.key)
		}
	}
	if hadLinks == 0 || y.len() != 0 {
		t.Fatalf("%d objects dropped had links, len() = %d after; want some, 0", hadLinks, y.len())
	}
}

// Remove and eviction take published objects out with the store's lock
// held alone, and their objects lose their links at once.
func TestRemovedObjectsLoseTheirLinks(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 64 << 20, MetadataOnly: true})
	keys := keysN("rm/", 8*minIndexHeads)
	items := make([]pool.PutItem, len(keys))
	for i, k := range keys {
		items[i] = pool.PutItem{Key: k, Size: 64}
	}
	if err := s.Put(context.Background(), items, make([]pool.Code, len(items))); err != nil {
		t.Fatalf("Put = %v", err)
	}
	objs := make([]*object, len(keys))
	for i, k := range keys {
		objs[i] = s.lookup(k)
	}
	newestFirst := slices.Clone(keys) // chains' heads first: they have links
	slices.Reverse(newestFirst)
	if err := s.Remove(context.Background(), newestFirst, true, make([]pool.Code, len(keys))); err != nil {
		t.Fatalf("Remove = %v", err)
	}
	for i, o := range objs {
		if o.next.Load() != nil {
			t.Fatalf("%q keeps its link after Remove", keys[i])
		}
	}
}
