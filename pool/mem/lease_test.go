package mem

import (
	"context"
	"testing"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// TestLeasesByOperation checks which reads lease a key: a leased key is
// refused by a plain Remove until the lease TTL has passed.
func TestLeasesByOperation(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name         string
		read         func(s *Store) error
		leases       bool
		metadataOnly bool
	}{
		{"Exist", func(s *Store) error { return s.Exist(ctx, []string{"k"}, make([]int, 1)) }, false, false},
		{"List", func(s *Store) error { return s.List(ctx, "", func(string) error { return nil }) }, false, false},
		{"ExistLeasing", func(s *Store) error { return s.ExistLeasing(ctx, []string{"k"}, make([]int, 1)) }, true, false},
		{"Get", func(s *Store) error { return s.Get(ctx, []string{"k"}, [][]byte{make([]byte, 8)}, make([]int64, 1)) }, true, false},
		{"Get too small", func(s *Store) error { return s.Get(ctx, []string{"k"}, [][]byte{nil}, make([]int64, 1)) }, true, false},
		{"Sizes", func(s *Store) error { return s.Sizes(ctx, []string{"k"}, make([]int64, 1)) }, true, false},
		{"View", func(s *Store) error { _, release, _ := s.View("k"); release(); return nil }, true, false},
		{"ViewBatch", viewBatchK, true, false},
		{"ViewBatch metadata-only", viewBatchK, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clock := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, MetadataOnly: tt.metadataOnly})
			if tt.metadataOnly {
				mustPut(t, s, pool.PutItem{Key: "k", Size: 8})
			} else {
				mustPut(t, s, sized("k", 8, pool.PutOptions{}))
			}
			if err := tt.read(s); err != nil {
				t.Fatalf("%s = %v", tt.name, err)
			}
			clock.Advance(DefaultLeaseTTL - time.Nanosecond)
			want := pool.OK
			if tt.leases {
				want = pool.ObjectHasLease
			}
			if got := removeKeys(t, s, false, "k")[0]; got != want {
				t.Fatalf("Remove(k) %v after %s = %v, want %v", DefaultLeaseTTL-time.Nanosecond, tt.name, got, want)
			}
			clock.Advance(time.Nanosecond)
			if got := removeKeys(t, s, false, "k")[0]; tt.leases && got != pool.OK {
				t.Errorf("Remove(k) once the lease expired = %v, want OK", got)
			}
		})
	}
}

// viewBatchK views key k in a batch of one and releases it.
func viewBatchK(s *Store) error {
	s.ViewBatch([]string{"k"}, make([][]byte, 1), make([]pool.Code, 1))()
	return nil
}

func TestLeaseIsExtendedToMax(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, LeaseTTL: 10 * time.Second})
	mustPut(t, s, sized("k", 8, pool.PutOptions{}))
	getKeys(t, s, 8, "k")
	clock.Advance(6 * time.Second)
	getKeys(t, s, 8, "k") // lease now runs to 16 s
	clock.Advance(6 * time.Second)
	if got := removeKeys(t, s, false, "k")[0]; got != pool.ObjectHasLease {
		t.Errorf("Remove(k) at 12 s after reads at 0 and 6 s = %v, want OBJECT_HAS_LEASE", got)
	}
	if got := removeKeys(t, s, true, "k")[0]; got != pool.OK {
		t.Errorf("Remove(k, force) = %v, want OK", got)
	}
}

func TestViewHoldsObject(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 10 * 1024, Segments: 1})
	mustPut(t, s, pool.PutItem{Key: "held", Value: []byte("hello")})
	b, release, code := s.View("held")
	if code != pool.OK || string(b) != "hello" {
		t.Fatalf("View(held) = %q, %v, want hello, OK", b, code)
	}
	clock.Advance(time.Hour)
	for i := range 9 {
		put(t, s, sized(keysN("fill", 9)[i], 1024, pool.PutOptions{}))
	}
	s.EvictNow()
	if got := present(t, s, "held")[0]; got != 1 {
		t.Fatalf("Exist(held) after eviction while viewed = %d, want 1", got)
	}
	if got := removeKeys(t, s, false, "held")[0]; got != pool.ObjectHasLease {
		t.Errorf("Remove(held) while viewed = %v, want OBJECT_HAS_LEASE", got)
	}
	used := stat(t, s).UsedBytes
	if got := removeKeys(t, s, true, "held")[0]; got != pool.OK {
		t.Fatalf("Remove(held, force) while viewed = %v, want OK", got)
	}
	if got := stat(t, s).UsedBytes; got != used {
		t.Errorf("UsedBytes after forced Remove of a viewed object = %d, want %d until release", got, used)
	}
	if string(b) != "hello" {
		t.Errorf("viewed bytes after forced Remove = %q, want hello", b)
	}
	release()
	release()
	if got := stat(t, s).UsedBytes; got != used-5 {
		t.Errorf("UsedBytes after release = %d, want %d", got, used-5)
	}
	checkInvariants(t, s)
}

func TestViewMissingAndMetadataOnly(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	if b, release, code := s.View("missing"); b != nil || code != pool.ObjectNotFound {
		t.Errorf("View(missing) = %q, %v, want nil, OBJECT_NOT_FOUND", b, code)
	} else {
		release()
	}
	m, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, MetadataOnly: true})
	mustPut(t, m, pool.PutItem{Key: "k", Size: 100})
	if b, _, code := m.View("k"); b != nil || code != pool.InvalidParams {
		t.Errorf("View(k) in metadata-only mode = %q, %v, want nil, INVALID_PARAMS", b, code)
	}
}
