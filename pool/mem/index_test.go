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

// indexState reads the store's view of keys: their sizes (ObjectNotFound
// when absent), its Stat.Keys and its listed keys, sorted.
func indexState(t *testing.T, s *Store, keys []string) (sizes []int64, count int64, listed []string) {
	t.Helper()
	sizes = make([]int64, len(keys))
	if err := s.Sizes(context.Background(), keys, sizes); err != nil {
		t.Fatalf("Sizes = %v", err)
	}
	if err := s.List(context.Background(), "", func(k string) error { listed = append(listed, k); return nil }); err != nil {
		t.Fatalf("List = %v", err)
	}
	slices.Sort(listed)
	return sizes, stat(t, s).Keys, listed
}

// checkIndexMatches compares the store's view of keys with want, key to
// size.
func checkIndexMatches(t *testing.T, s *Store, keys []string, want map[string]int64, step int) {
	t.Helper()
	sizes, count, listed := indexState(t, s, keys)
	var wantListed []string
	for i, k := range keys {
		n, ok := want[k]
		if !ok {
			n = int64(pool.ObjectNotFound)
		} else {
			wantListed = append(wantListed, k)
		}
		if sizes[i] != n {
			t.Fatalf("step %d: Sizes(%s) = %d, want %d", step, k, sizes[i], n)
		}
	}
	slices.Sort(wantListed)
	if count != int64(len(want)) || !slices.Equal(listed, wantListed) {
		t.Fatalf("step %d: Stat().Keys = %d and List() = %d keys, want %d", step, count, len(listed), len(want))
	}
}

// TestIndexMatchesModel runs random puts, aborted and committed
// reservations and removals of a few hundred keys on a store and on a Go
// map and checks that they agree: many keys share the index's buckets,
// which grow, and keys come and go again and again.
func TestIndexMatchesModel(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10})
	rng := rand.New(rand.NewPCG(1, 2))
	keys := keysN("idx/", 400)
	want := map[string]int64{}
	for step := range 4000 {
		k := keys[rng.IntN(len(keys))]
		n := int64(1 + rng.IntN(200))
		_, there := want[k]
		switch op := rng.IntN(4); {
		case op == 0 && there:
			if got := removeKeys(t, s, true, k)[0]; got != pool.OK {
				t.Fatalf("step %d: Remove(%s) = %v, want OK", step, k, got)
			}
			delete(want, k)
		case op == 1:
			r, _, codes := reserve(t, s, inPlace(k, n, pool.PutOptions{}))
			r.Abort()
			if wantCode := codeFor(there); codes[0] != wantCode {
				t.Fatalf("step %d: Reserve(%s) = %v, want %v", step, k, codes[0], wantCode)
			}
		default:
			if got, wantCode := put(t, s, sized(k, int(n), pool.PutOptions{}))[0], codeFor(there); got != wantCode {
				t.Fatalf("step %d: Put(%s) = %v, want %v", step, k, got, wantCode)
			}
			if !there {
				want[k] = n
			}
		}
		if step%400 == 0 {
			checkIndexMatches(t, s, keys, want, step)
		}
	}
	checkIndexMatches(t, s, keys, want, 4000)
	checkInvariants(t, s)
}

func codeFor(present bool) pool.Code {
	if present {
		return pool.ObjectAlreadyExists
	}
	return pool.OK
}

// TestIndexClearAndRefill fills the store, removes every key and fills it
// again, several times, with the same keys and with others: each round
// finds exactly its own keys.
func TestIndexClearAndRefill(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 4 << 20, Segments: 2, ArenaSize: 64 << 10, MetadataOnly: true})
	for round := range 6 {
		keys := keysN(fmt.Sprintf("round%d/", round%2), 2000)
		items := make([]pool.PutItem, len(keys))
		for i, k := range keys {
			items[i] = pool.PutItem{Key: k, Size: int64(1 + i%100)}
		}
		mustPut(t, s, items...)
		want := map[string]int64{}
		for _, it := range items {
			want[it.Key] = it.Size
		}
		other := keysN(fmt.Sprintf("round%d/", (round+1)%2), 2000)
		checkIndexMatches(t, s, append(other, keys...), want, round)
		for i, c := range removeKeys(t, s, true, keys...) {
			if c != pool.OK {
				t.Fatalf("round %d: Remove(%s) = %v, want OK", round, keys[i], c)
			}
		}
		checkIndexMatches(t, s, keys, map[string]int64{}, round)
	}
}

// TestIndexLookupsDuringChurn looks up keys that stay in the store while
// other goroutines claim keys around them and take them out again (puts,
// aborted reservations, removals), which grows the index and changes the
// buckets the stable keys share: every lookup must find them (run with
// -race).
func TestIndexLookupsDuringChurn(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10})
	stable := keysN("stable/", 64)
	items := make([]pool.PutItem, len(stable))
	for i, k := range stable {
		items[i] = sized(k, 64, pool.PutOptions{})
	}
	mustPut(t, s, items...)
	var churners, readers sync.WaitGroup
	for g := range 2 {
		churners.Go(func() {
			if err := churnKeys(s, keysN(fmt.Sprintf("churn%d/", g), 256)); err != nil {
				t.Error(err)
			}
		})
	}
	stop := make(chan struct{})
	for range 2 {
		readers.Go(func() {
			if err := lookUpUntil(s, stable, stop); err != nil {
				t.Error(err)
			}
		})
	}
	churners.Wait()
	close(stop)
	readers.Wait()
	checkIndexMatches(t, s, stable, sizesOf(stable, 64), 0)
	checkInvariants(t, s)
}

// churnKeys reserves and aborts, puts and removes growing batches of keys,
// checking the codes.
func churnKeys(s *Store, keys []string) error {
	ctx := context.Background()
	for round := range 40 {
		n := 16 + round*6
		items := make([]pool.PutItem, n)
		for i := range items {
			items[i] = pool.PutItem{Key: keys[i], Size: 64, Value: make([]byte, 64)}
		}
		codes := make([]pool.Code, n)
		r, err := s.Reserve(ctx, items, make([][]byte, n), codes)
		if err != nil || slices.ContainsFunc(codes, func(c pool.Code) bool { return c != pool.OK }) {
			return fmt.Errorf("round %d: Reserve = %v, %v, want every key OK", round, codes, err)
		}
		r.Abort()
		if err := s.Put(ctx, items, codes); err != nil || slices.ContainsFunc(codes, func(c pool.Code) bool { return c != pool.OK }) {
			return fmt.Errorf("round %d: Put after Abort = %v, %v, want every key OK", round, codes, err)
		}
		if err := s.Remove(ctx, keys[:n], true, codes); err != nil || slices.ContainsFunc(codes, func(c pool.Code) bool { return c != pool.OK }) {
			return fmt.Errorf("round %d: Remove = %v, %v, want every key OK", round, codes, err)
		}
	}
	return nil
}

// lookUpUntil checks that every key exists until stop is closed.
func lookUpUntil(s *Store, keys []string, stop <-chan struct{}) error {
	status := make([]int, len(keys))
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		if err := s.Exist(context.Background(), keys, status); err != nil {
			return fmt.Errorf("Exist = %w", err)
		}
		if i := slices.Index(status, 0); i >= 0 {
			return fmt.Errorf("Exist(%s) during churn = 0, want 1", keys[i])
		}
	}
}

func sizesOf(keys []string, n int64) map[string]int64 {
	m := make(map[string]int64, len(keys))
	for _, k := range keys {
		m[k] = n
	}
	return m
}

// TestIndexKeys: Options.IndexKeys sizes the index at open for that many
// keys; out of range, New refuses it.
func TestIndexKeys(t *testing.T) {
	tests := []struct {
		keys        int64
		wantAtLeast int // keys the root table holds below its load factor
	}{
		{0, 64}, // a key per MiB of capacity
		{100_000, 100_000},
		{3_000_000, 3_000_000},
	}
	for _, tt := range tests {
		s, err := New(Options{Capacity: 64 << 20, IndexKeys: tt.keys, Eviction: EvictManual})
		if err != nil {
			t.Fatalf("New(IndexKeys %d) = %v", tt.keys, err)
		}
		// The table grows above maxIndexLoad keys a head.
		if got := len(s.index.heads) * maxIndexLoad; got < tt.wantAtLeast || got > max(2*tt.wantAtLeast, minIndexHeads) {
			t.Errorf("New(IndexKeys %d): index holds %d keys without growing, want %d to %d", tt.keys, got, tt.wantAtLeast, max(2*tt.wantAtLeast, minIndexHeads))
		}
		s.Close()
	}
	for _, keys := range []int64{-1, MaxIndexKeys + 1} {
		if _, err := New(Options{Capacity: 64 << 20, IndexKeys: keys}); err == nil {
			t.Errorf("New(IndexKeys %d) = nil error, want one", keys)
		}
	}
}
