package mem

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// viewBatch runs ViewBatch over keys with junk in the views, so that the
// test sees every slot written.
func viewBatch(s *Store, keys ...string) ([][]byte, []pool.Code, func()) {
	views := make([][]byte, len(keys))
	codes := make([]pool.Code, len(keys))
	for i := range views {
		views[i], codes[i] = []byte("junk"), pool.Code(1)
	}
	release := s.ViewBatch(keys, views, codes)
	return views, codes, release
}

// strs spells views as strings, "<nil>" for nil ones.
func strs(views [][]byte) []string {
	out := make([]string, len(views))
	for i, v := range views {
		out[i] = "<nil>"
		if v != nil {
			out[i] = string(v)
		}
	}
	return out
}

func TestViewBatchAnswers(t *testing.T) {
	tests := []struct {
		name         string
		metadataOnly bool
		closed       bool
		keys         []string
		wantViews    []string
		wantCodes    []pool.Code
	}{
		{"empty batch", false, false, nil, []string{}, []pool.Code{}},
		{"present and absent", false, false, []string{"a", "missing", "b"},
			[]string{"alpha", "<nil>", "beta"}, []pool.Code{pool.OK, pool.ObjectNotFound, pool.OK}},
		{"same key twice", false, false, []string{"a", "a"},
			[]string{"alpha", "alpha"}, []pool.Code{pool.OK, pool.OK}},
		{"metadata-only", true, false, []string{"a", "missing"},
			[]string{"<nil>", "<nil>"}, []pool.Code{pool.InvalidParams, pool.ObjectNotFound}},
		{"closed", false, true, []string{"a", "missing"},
			[]string{"<nil>", "<nil>"}, []pool.Code{pool.RPCFail, pool.RPCFail}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2, MetadataOnly: tt.metadataOnly})
			if tt.metadataOnly {
				mustPut(t, s, pool.PutItem{Key: "a", Size: 5}, pool.PutItem{Key: "b", Size: 4})
			} else {
				mustPut(t, s, pool.PutItem{Key: "a", Value: []byte("alpha")}, pool.PutItem{Key: "b", Value: []byte("beta")})
			}
			if tt.closed {
				s.Close()
			}
			views, codes, release := viewBatch(s, tt.keys...)
			defer release()
			if diff := cmp.Diff(tt.wantViews, strs(views)); diff != "" {
				t.Errorf("ViewBatch(%q) views mismatch (-want +got):\n%s", tt.keys, diff)
			}
			if diff := cmp.Diff(tt.wantCodes, codes); diff != "" {
				t.Errorf("ViewBatch(%q) codes mismatch (-want +got):\n%s", tt.keys, diff)
			}
		})
	}
}

// TestViewBatchIsInPlace checks that a view is the object's stored bytes,
// capped at its size, not a copy.
func TestViewBatchIsInPlace(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	mustPut(t, s, pool.PutItem{Key: "a", Value: []byte("alpha")})
	views, _, release := viewBatch(s, "a")
	defer release()
	if cap(views[0]) != 5 {
		t.Errorf("cap(ViewBatch(a)) = %d, want 5", cap(views[0]))
	}
	b, releaseView, _ := s.View("a")
	defer releaseView()
	if &b[0] != &views[0][0] {
		t.Errorf("ViewBatch(a) and View(a) point at different bytes, want the same arena bytes")
	}
}

func TestViewBatchLengthMismatchPanics(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	tests := []struct {
		name          string
		views, codes  int
		wantPanicking bool
	}{
		{"matching", 2, 2, false},
		{"short views", 1, 2, true},
		{"short codes", 2, 1, true},
		{"long views", 3, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				s.ViewBatch([]string{"a", "b"}, make([][]byte, tt.views), make([]pool.Code, tt.codes))()
				return false
			}()
			if panicked != tt.wantPanicking {
				t.Errorf("ViewBatch(2 keys, %d views, %d codes) panicked = %t, want %t", tt.views, tt.codes, panicked, tt.wantPanicking)
			}
		})
	}
}

// TestViewBatchHoldsObjects checks that viewed objects outlive a forced
// removal or an eviction step with their bytes until release, and are
// freed then.
func TestViewBatchHoldsObjects(t *testing.T) {
	tests := []struct {
		name string
		drop func(t *testing.T, s *Store) // tries to take a and b away while viewed
		// afterRelease takes them away once released, if drop could not.
		afterRelease func(t *testing.T, s *Store)
	}{
		{"forced remove", func(t *testing.T, s *Store) {
			if got := removeKeys(t, s, true, "a", "b"); !cmp.Equal(got, []pool.Code{pool.OK, pool.OK}) {
				t.Errorf("Remove(a, b, force) while viewed = %v, want OK, OK", got)
			}
		}, func(*testing.T, *Store) {}},
		{"eviction", func(t *testing.T, s *Store) {
			for _, k := range keysN("fill", 8) {
				put(t, s, sized(k, 1024, pool.PutOptions{HardPin: true}))
			}
			s.EvictNow()
		}, func(t *testing.T, s *Store) {
			s.needEviction.Store(true)
			if step := s.RunEvictionStep(); step.Pass1+step.Pass2 != 2 {
				t.Errorf("RunEvictionStep() after release = %+v, want a and b evicted", step)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clock := newTestStore(t, Options{Capacity: 10 * 1024, Segments: 1})
			grouped := pool.PutOptions{GroupID: "g"} // evicted together
			mustPut(t, s, sized("a", 1000, grouped), sized("b", 1000, grouped))
			copy(s.lookup("a").bytes(), "alpha")
			views, _, release := viewBatch(s, "a", "b")
			clock.Advance(time.Hour) // leases expired: only the views hold a and b
			tt.drop(t, s)
			used := stat(t, s).UsedBytes
			if string(views[0][:5]) != "alpha" || len(views[1]) != 1000 {
				t.Errorf("views after %s = %q..., %d bytes, want alpha..., 1000 bytes", tt.name, views[0][:5], len(views[1]))
			}
			release()
			release()
			tt.afterRelease(t, s)
			if got := stat(t, s).UsedBytes; got != used-2*1000 {
				t.Errorf("UsedBytes after release = %d, want %d", got, used-2*1000)
			}
			if got := present(t, s, "a", "b"); !cmp.Equal(got, []int{0, 0}) {
				t.Errorf("Exist(a, b) after release = %v, want 0, 0", got)
			}
			checkInvariants(t, s)
		})
	}
}

// TestViewBatchStaleReleaseIsNoop checks that calling a release again,
// after its recycled hold went to another batch, leaves that batch's
// views held.
func TestViewBatchStaleReleaseIsNoop(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	mustPut(t, s, sized("a", 8, pool.PutOptions{}), sized("b", 8, pool.PutOptions{}))
	for range 10 {
		_, _, first := viewBatch(s, "a")
		first()
		_, _, second := viewBatch(s, "b")
		first()
		if got := s.lookup("b").readers.Load(); got != 1 {
			t.Fatalf("readers of b after a stale release = %d, want 1", got)
		}
		second()
		if got := s.lookup("a").readers.Load() + s.lookup("b").readers.Load(); got != 0 {
			t.Fatalf("readers of a and b after releases = %d, want 0", got)
		}
	}
}

// TestViewBatchConcurrentRelease calls one release from several goroutines
// while others view and force-remove (run with -race).
func TestViewBatchConcurrentRelease(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2})
	keys := keysN("k", 64)
	for _, k := range keys {
		mustPut(t, s, sized(k, 100, pool.PutOptions{}))
	}
	views, _, release := viewBatch(s, keys...)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			release()
			vs, codes, rel := viewBatch(s, keys...)
			for i, c := range codes {
				if c == pool.OK && len(vs[i]) != 100 {
					t.Errorf("goroutine %d: ViewBatch(%s) = %d bytes, want 100", g, keys[i], len(vs[i]))
				}
			}
			rel()
		})
	}
	wg.Go(func() { s.Remove(context.Background(), keys, true, make([]pool.Code, len(keys))) })
	wg.Wait()
	if len(views[0]) != 100 {
		t.Errorf("first view = %d bytes, want 100", len(views[0]))
	}
	if st := stat(t, s); st.UsedBytes != 0 || st.Keys != 0 {
		t.Errorf("Stat() after removal and releases = %d bytes, %d keys, want 0, 0", st.UsedBytes, st.Keys)
	}
	checkInvariants(t, s)
}

func ExampleStore_ViewBatch() {
	s, _ := New(Options{Capacity: 1 << 20})
	defer s.Close()
	ctx := context.Background()
	s.Put(ctx, []pool.PutItem{{Key: "page/1", Value: []byte("bytes")}}, make([]pool.Code, 1))
	keys := []string{"page/1", "page/2"}
	views, codes := make([][]byte, len(keys)), make([]pool.Code, len(keys))
	release := s.ViewBatch(keys, views, codes)
	defer release()
	for i, k := range keys {
		fmt.Printf("%s: %q %v\n", k, views[i], codes[i])
	}
	// Output:
	// page/1: "bytes" OK
	// page/2: "" OBJECT_NOT_FOUND
}
