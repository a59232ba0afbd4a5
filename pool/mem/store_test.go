package mem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/pooltest"
)

func TestConformance(t *testing.T) {
	pooltest.Run(t, func(t *testing.T) pool.Store {
		s, err := New(Options{Capacity: 64 << 20, Segments: 4, Eviction: EvictManual})
		if err != nil {
			t.Fatalf("New = %v", err)
		}
		return s
	})
}

func TestConformanceThroughOpen(t *testing.T) {
	pooltest.Run(t, func(t *testing.T) pool.Store {
		s, err := pool.Open(context.Background(), "mem://?capacity=128MiB&segments=2&eviction=background")
		if err != nil {
			t.Fatalf("pool.Open = %v", err)
		}
		return s
	})
}

func TestPutExistingKeepsFirstAndCounts(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	mustPut(t, s, pool.PutItem{Key: "k", Value: []byte("first")})
	got := put(t, s, pool.PutItem{Key: "k", Value: []byte("second!")}, pool.PutItem{Key: "k", Value: []byte("third")})
	if want := []pool.Code{pool.ObjectAlreadyExists, pool.ObjectAlreadyExists}; !cmp.Equal(got, want) {
		t.Errorf("Put(existing twice) = %v, want %v", got, want)
	}
	bufs, n := getKeys(t, s, 16, "k")
	if string(bufs[0][:n[0]]) != "first" {
		t.Errorf("Get(k) = %q, want %q", bufs[0][:max(n[0], 0)], "first")
	}
	if st := stat(t, s); st.PutsExisting != 2 || st.Keys != 1 || st.UsedBytes != 5 {
		t.Errorf("Stat() = puts existing %d, keys %d, used %d; want 2, 1, 5", st.PutsExisting, st.Keys, st.UsedBytes)
	}
}

func TestPutInvalidParams(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10})
	long := string(make([]byte, MaxKeyLen+1))
	tests := []struct {
		name string
		item pool.PutItem
	}{
		{"empty key", pool.PutItem{Key: "", Value: []byte("v")}},
		{"key too long", pool.PutItem{Key: long, Value: []byte("v")}},
		{"empty value", pool.PutItem{Key: "k", Value: []byte{}}},
		{"nil value in byte mode", pool.PutItem{Key: "k", Size: 10}},
		{"larger than a segment", sized("k", 512<<10+1, pool.PutOptions{})},
		{"soft pin TTL above max", sized("k", 8, pool.PutOptions{SoftPin: pool.SoftPinEnable, SoftPinTTL: 25 * time.Hour})},
		{"negative soft pin TTL", sized("k", 8, pool.PutOptions{SoftPin: pool.SoftPinEnable, SoftPinTTL: -time.Second})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := put(t, s, tt.item); got[0] != pool.InvalidParams {
				t.Errorf("Put(%s) = %v, want INVALID_PARAMS", tt.name, got[0])
			}
		})
	}
	if st := stat(t, s); st.Keys != 0 || st.UsedBytes != 0 {
		t.Errorf("Stat() after refused puts = %d keys, %d bytes, want 0, 0", st.Keys, st.UsedBytes)
	}
}

// TestObjectsUpToASegment checks that an object may be as large as a
// segment, as upstream's (one OffsetAllocator per mounted segment), in
// byte and metadata-only mode, and that its bytes lie in one arena.
func TestObjectsUpToASegment(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name string
		opts Options
		size int64
	}{
		{"a segment's worth", Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10}, 512 << 10},
		{"160 MiB in bytes", Options{Capacity: 200 * mib, Segments: 1}, 160 * mib},
		{"160 MiB without bytes", Options{Capacity: 200 * mib, Segments: 1, MetadataOnly: true}, 160 * mib},
		{"3 GiB, the largest bin in 3.125 GiB, without bytes", Options{Capacity: 4 * 3200 * mib, Segments: 4, MetadataOnly: true}, 3072 * mib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(t, tt.opts)
			it := pool.PutItem{Key: "k", Size: tt.size}
			if !tt.opts.MetadataOnly {
				it.Value = make([]byte, tt.size)
			}
			if got := put(t, s, it); got[0] != pool.OK {
				t.Fatalf("Put(%d bytes) = %v, want OK", tt.size, got[0])
			}
			sizes := make([]int64, 1)
			if err := s.Sizes(context.Background(), []string{"k"}, sizes); err != nil || sizes[0] != tt.size {
				t.Errorf("Sizes(k) = %d, %v, want %d", sizes[0], err, tt.size)
			}
			if !tt.opts.MetadataOnly {
				view, release, code := s.View("k")
				defer release()
				if code != pool.OK || len(view) != int(tt.size) || !inside(view, s.Arenas()) {
					t.Errorf("View(k) = %d bytes, %v; want them inside one of Arenas()", len(view), code)
				}
			}
			checkInvariants(t, s)
		})
	}
}

func TestClosedStore(t *testing.T) {
	s, err := New(Options{Capacity: 1 << 20, Segments: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	select {
	case <-s.done:
	default:
		t.Errorf("eviction goroutine still running after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
	if err := s.Exist(context.Background(), []string{"k"}, make([]int, 1)); !errors.Is(err, ErrClosed) {
		t.Errorf("Exist after Close = %v, want ErrClosed", err)
	}
	if err := s.Put(context.Background(), []pool.PutItem{{Key: "k", Value: []byte("v")}}, make([]pool.Code, 1)); !errors.Is(err, ErrClosed) {
		t.Errorf("Put after Close = %v, want ErrClosed", err)
	}
	if _, _, code := s.View("k"); code != pool.RPCFail {
		t.Errorf("View after Close = %v, want RPC_FAIL", code)
	}
}

func TestStatSegments(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1000 * Granule, Segments: 3})
	// One call per value: each call takes the next segment.
	for _, it := range []pool.PutItem{sized("a", 100, pool.PutOptions{}), sized("b", 64, pool.PutOptions{}), sized("c", 1, pool.PutOptions{}), sized("d", 65, pool.PutOptions{})} {
		mustPut(t, s, it)
	}
	want := pool.Stat{
		Backend:       "mem",
		Address:       "mem://?capacity=64000&segments=3",
		Keys:          4,
		UsedBytes:     100 + 64 + 1 + 65,
		CapacityBytes: 64000,
		Segments: []pool.Segment{
			{Name: "mem-0", CapacityBytes: 21334, UsedBytes: 100 + 65},
			{Name: "mem-1", CapacityBytes: 21333, UsedBytes: 64},
			{Name: "mem-2", CapacityBytes: 21333, UsedBytes: 1},
		},
	}
	if diff := cmp.Diff(want, stat(t, s)); diff != "" {
		t.Errorf("Stat() mismatch (-want +got):\n%s", diff)
	}
	checkInvariants(t, s)
}

func TestListAndSizes(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	mustPut(t, s, sized("a/1", 10, pool.PutOptions{}), sized("a/2", 20, pool.PutOptions{}), sized("b/1", 30, pool.PutOptions{}))
	var got []string
	if err := s.List(context.Background(), "a/", func(k string) error { got = append(got, k); return nil }); err != nil {
		t.Fatalf("List = %v", err)
	}
	if len(got) != 2 {
		t.Errorf("List(a/) = %q, want 2 keys", got)
	}
	n := make([]int64, 3)
	if err := s.Sizes(context.Background(), []string{"a/2", "zzz", "b/1"}, n); err != nil {
		t.Fatalf("Sizes = %v", err)
	}
	if want := []int64{20, int64(pool.ObjectNotFound), 30}; !cmp.Equal(n, want) {
		t.Errorf("Sizes(a/2, zzz, b/1) = %v, want %v", n, want)
	}
}

// TestConcurrentDistinctKeys races writers and readers of different keys
// while arenas are being opened; run it with -race.
func TestConcurrentDistinctKeys(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 8 << 20, Segments: 2, ArenaSize: 64 << 10})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for _, k := range keysN(fmt.Sprintf("w%d/", w), 200) {
				v := bytes.Repeat([]byte(k), 400)
				res := make([]pool.Code, 1)
				if err := s.Put(context.Background(), []pool.PutItem{{Key: k, Value: v}}, res); err != nil || res[0] != pool.OK {
					t.Errorf("Put(%q) = %v, %v", k, res[0], err)
					return
				}
				buf := [][]byte{make([]byte, len(v))}
				n := make([]int64, 1)
				if err := s.Get(context.Background(), []string{k}, buf, n); err != nil || !bytes.Equal(buf[0], v) {
					t.Errorf("Get(%q) = %d bytes, %v, want the value put", k, n[0], err)
					return
				}
			}
		})
	}
	wg.Wait()
	checkInvariants(t, s)
}

// TestLargePoolCostsWhatItHolds checks that a byte pool of 64 GiB holding
// a small value and one larger than an arena allocates an arena for each
// and nothing more: arenas are all the memory values take.
func TestLargePoolCostsWhatItHolds(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 64 << 30})
	mustPut(t, s, pool.PutItem{Key: "small", Value: make([]byte, 1024)})
	mustPut(t, s, pool.PutItem{Key: "large", Value: make([]byte, 80<<20)})
	var total int64
	for _, a := range s.Arenas() {
		total += int64(len(a))
	}
	if want := int64(DefaultArenaSize + 80<<20); total != want {
		t.Errorf("arena bytes of a 64 GiB pool holding 1 KiB and 80 MiB = %d, want %d", total, want)
	}
}
