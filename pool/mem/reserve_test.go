package mem

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// reserve runs Reserve with junk in dsts, so that the test sees every slot
// written, failing the test on a whole-call error.
func reserve(t *testing.T, s *Store, items ...pool.PutItem) (pool.Reservation, [][]byte, []pool.Code) {
	t.Helper()
	dsts := make([][]byte, len(items))
	for i := range dsts {
		dsts[i] = []byte("junk")
	}
	codes := make([]pool.Code, len(items))
	r, err := s.Reserve(context.Background(), items, dsts, codes)
	if err != nil {
		t.Fatalf("Reserve = %v", err)
	}
	return r, dsts, codes
}

// inPlace is a reservation of n bytes under key, with no Value.
func inPlace(key string, n int64, opts pool.PutOptions) pool.PutItem {
	return pool.PutItem{Key: key, Size: n, Options: opts}
}

// visibility probes key through every read, answering whether each found it.
func visibility(t *testing.T, s *Store, key string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	got := map[string]bool{}
	st := make([]int, 1)
	s.Exist(ctx, []string{key}, st)
	got["Exist"] = st[0] == 1
	s.ExistLeasing(ctx, []string{key}, st)
	got["ExistLeasing"] = st[0] == 1
	_, n := getKeys(t, s, 64, key)
	got["Get"] = n[0] >= 0
	sizes := make([]int64, 1)
	s.Sizes(ctx, []string{key}, sizes)
	got["Sizes"] = sizes[0] >= 0
	_, release, code := s.View(key)
	release()
	got["View"] = code == pool.OK
	_, codes, releaseBatch := viewBatch(s, key)
	releaseBatch()
	got["ViewBatch"] = codes[0] == pool.OK
	got["List"] = false
	s.List(ctx, key, func(string) error { got["List"] = true; return nil })
	return got
}

func allReads(found bool) map[string]bool {
	m := map[string]bool{}
	for _, r := range []string{"Exist", "ExistLeasing", "Get", "Sizes", "View", "ViewBatch", "List"} {
		m[r] = found
	}
	return m
}

func TestReserveCommit(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2, SoftPinTTL: time.Minute})
	items := []pool.PutItem{
		inPlace("plain", 5, pool.PutOptions{}),
		inPlace("soft", 64, pool.PutOptions{SoftPin: pool.SoftPinEnable}),
		inPlace("grouped", 100, pool.PutOptions{GroupID: "g", HardPin: true}),
		{Key: "valued", Value: []byte("ignored")},
	}
	r, dsts, codes := reserve(t, s, items...)
	if want := []pool.Code{pool.OK, pool.OK, pool.OK, pool.OK}; !cmp.Equal(codes, want) {
		t.Fatalf("Reserve codes = %v, want %v", codes, want)
	}
	for i, d := range dsts {
		if int64(len(d)) != items[i].SizeOf() {
			t.Errorf("Reserve dsts[%d] = %d bytes, want %d", i, len(d), items[i].SizeOf())
		}
	}
	copy(dsts[0], "hello")
	if diff := cmp.Diff(allReads(false), visibility(t, s, "plain")); diff != "" {
		t.Errorf("reads of a reserved key mismatch (-want +got):\n%s", diff)
	}
	if got := removeKeys(t, s, true, "plain")[0]; got != pool.ReplicaIsNotReady {
		t.Errorf("Remove(reserved key, force) = %v, want REPLICA_IS_NOT_READY", got)
	}
	if st := stat(t, s); st.Keys != 0 || st.UsedBytes != 5+64+100+7 {
		t.Errorf("Stat() while reserved = %d keys, %d bytes, want 0, %d", st.Keys, st.UsedBytes, 5+64+100+7)
	}
	clock.Advance(time.Second)
	commitAt := clock.Now().UnixNano()
	r.Commit()
	r.Commit()
	r.Abort()
	if diff := cmp.Diff(allReads(true), visibility(t, s, "plain")); diff != "" {
		t.Errorf("reads of a committed key mismatch (-want +got):\n%s", diff)
	}
	if bufs, n := getKeys(t, s, 16, "plain"); string(bufs[0][:n[0]]) != "hello" {
		t.Errorf("Get(plain) after Commit = %q, want hello", bufs[0][:max(n[0], 0)])
	}
	if st := stat(t, s); st.Keys != 4 || st.SoftPinnedKeys != 1 {
		t.Errorf("Stat() after Commit = %d keys, %d soft-pinned, want 4, 1", st.Keys, st.SoftPinnedKeys)
	}
	soft, grouped := s.lookup("soft"), s.lookup("grouped")
	if want := commitAt + int64(time.Minute); soft.softPinUntil() != want {
		t.Errorf("soft pin deadline = %d, want commit time + TTL = %d", soft.softPinUntil(), want)
	}
	if grouped.group() == nil || grouped.group().id != "g" || !grouped.hardPinned() {
		t.Errorf("grouped object: group %v, hard pin %t, want group g, hard pin", grouped.group(), grouped.hardPinned())
	}
	checkInvariants(t, s)
}

func TestReserveAbort(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2})
	mustPut(t, s, sized("before", 100, pool.PutOptions{}))
	before := stat(t, s)
	r, _, _ := reserve(t, s, inPlace("a", 1000, pool.PutOptions{GroupID: "g"}), inPlace("b", 10, pool.PutOptions{}))
	if got := stat(t, s).UsedBytes; got != before.UsedBytes+1000+10 {
		t.Errorf("UsedBytes while reserved = %d, want %d", got, before.UsedBytes+1000+10)
	}
	r.Abort()
	r.Abort()
	r.Commit()
	if diff := cmp.Diff(before, stat(t, s)); diff != "" {
		t.Errorf("Stat() after Abort mismatch (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(allReads(false), visibility(t, s, "a")); diff != "" {
		t.Errorf("reads of an aborted key mismatch (-want +got):\n%s", diff)
	}
	if len(s.groups) != 0 {
		t.Errorf("groups after Abort = %d, want none", len(s.groups))
	}
	mustPut(t, s, sized("a", 8, pool.PutOptions{}))
	r2, _, codes := reserve(t, s, inPlace("b", 10, pool.PutOptions{}))
	if codes[0] != pool.OK {
		t.Errorf("Reserve(b) after Abort = %v, want OK", codes[0])
	}
	r2.Commit()
	checkInvariants(t, s)
}

func TestReserveCodes(t *testing.T) {
	long := string(make([]byte, MaxKeyLen+1))
	tests := []struct {
		name      string
		opts      Options
		items     []pool.PutItem
		wantCodes []pool.Code
	}{
		{"nil value, size given", Options{}, []pool.PutItem{inPlace("k", 10, pool.PutOptions{})}, []pool.Code{pool.OK}},
		{"same key twice in one call", Options{},
			[]pool.PutItem{inPlace("k", 10, pool.PutOptions{}), inPlace("k", 20, pool.PutOptions{})},
			[]pool.Code{pool.OK, pool.ObjectAlreadyExists}},
		{"published key", Options{}, []pool.PutItem{inPlace("stored", 10, pool.PutOptions{})}, []pool.Code{pool.ObjectAlreadyExists}},
		{"reserved key", Options{}, []pool.PutItem{inPlace("reserved", 10, pool.PutOptions{})}, []pool.Code{pool.ObjectAlreadyExists}},
		{"bad items", Options{}, []pool.PutItem{
			inPlace("", 10, pool.PutOptions{}),
			inPlace(long, 10, pool.PutOptions{}),
			inPlace("zero", 0, pool.PutOptions{}),
			{Key: "empty value", Value: []byte{}},
			inPlace("too large", 64<<10+1, pool.PutOptions{}),
			inPlace("ttl", 10, pool.PutOptions{SoftPin: pool.SoftPinEnable, SoftPinTTL: 25 * time.Hour}),
			inPlace("negative ttl", 10, pool.PutOptions{SoftPin: pool.SoftPinEnable, SoftPinTTL: -time.Second}),
		}, []pool.Code{pool.InvalidParams, pool.InvalidParams, pool.InvalidParams, pool.InvalidParams, pool.InvalidParams, pool.InvalidParams, pool.InvalidParams}},
		{"no room", Options{}, []pool.PutItem{inPlace("fits", 60<<10, pool.PutOptions{}), inPlace("no room", 4<<10, pool.PutOptions{})},
			[]pool.Code{pool.OK, pool.NoAvailableHandle}},
		{"no room once rounded to its bin", Options{}, []pool.PutItem{inPlace("rounds to 64 KiB", 60<<10+1, pool.PutOptions{})},
			[]pool.Code{pool.NoAvailableHandle}},
		{"metadata-only", Options{MetadataOnly: true},
			[]pool.PutItem{inPlace("k", 10, pool.PutOptions{}), inPlace("stored", 10, pool.PutOptions{})},
			[]pool.Code{pool.InvalidParams, pool.InvalidParams}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Capacity, opts.Segments, opts.ArenaSize = 64<<10, 1, 64<<10
			s, _ := newTestStore(t, opts)
			mustPut(t, s, pool.PutItem{Key: "stored", Value: []byte("v"), Size: 1})
			held, _, _ := reserve(t, s, inPlace("reserved", 1, pool.PutOptions{}))
			defer held.Abort()
			before := stat(t, s)
			r, dsts, codes := reserve(t, s, tt.items...)
			defer r.Abort()
			if diff := cmp.Diff(tt.wantCodes, codes); diff != "" {
				t.Fatalf("Reserve codes mismatch (-want +got):\n%s", diff)
			}
			var exists, failed, used int64
			for i, c := range codes {
				switch c {
				case pool.OK:
					used += tt.items[i].SizeOf()
				case pool.ObjectAlreadyExists:
					exists++
				case pool.NoAvailableHandle:
					failed++
				}
				if want := tt.items[i].SizeOf(); (c == pool.OK) != (dsts[i] != nil) || c == pool.OK && int64(len(dsts[i])) != want {
					t.Errorf("Reserve(%s) = %v with %d-byte dst (nil %t), want %d bytes only when OK", tt.items[i].Key, c, len(dsts[i]), dsts[i] == nil, want)
				}
			}
			after := stat(t, s)
			if after.PutsExisting-before.PutsExisting != exists || after.AllocationFailure-before.AllocationFailure != failed || after.UsedBytes-before.UsedBytes != used {
				t.Errorf("Stat() change = %d existing, %d failures, %d bytes, want %d, %d, %d",
					after.PutsExisting-before.PutsExisting, after.AllocationFailure-before.AllocationFailure, after.UsedBytes-before.UsedBytes, exists, failed, used)
			}
			if got := s.needEviction.Load(); got != (failed > 0) {
				t.Errorf("eviction requested after Reserve = %t, want %t", got, failed > 0)
			}
		})
	}
}

// TestReserveHoldsKeyAgainstPut checks that a Put of a reserved key is a
// no-op answered ObjectAlreadyExists, as for a put in progress.
func TestReserveHoldsKeyAgainstPut(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	r, dsts, _ := reserve(t, s, inPlace("k", 5, pool.PutOptions{}))
	if got := put(t, s, pool.PutItem{Key: "k", Value: []byte("other")})[0]; got != pool.ObjectAlreadyExists {
		t.Errorf("Put(reserved key) = %v, want OBJECT_ALREADY_EXISTS", got)
	}
	copy(dsts[0], "first")
	r.Commit()
	if bufs, n := getKeys(t, s, 8, "k"); string(bufs[0][:n[0]]) != "first" {
		t.Errorf("Get(k) = %q, want the reservation's bytes %q", bufs[0][:max(n[0], 0)], "first")
	}
}

func TestReserveWholeCallErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	items := []pool.PutItem{inPlace("k", 8, pool.PutOptions{})}
	tests := []struct {
		name     string
		ctx      context.Context
		close    bool
		dsts     int
		codes    int
		wantIs   error
		wantCode pool.Code
	}{
		{"cancelled", cancelled, false, 1, 1, context.Canceled, pool.RPCFail},
		{"closed", context.Background(), true, 1, 1, ErrClosed, pool.RPCFail},
		{"short codes", context.Background(), false, 1, 0, nil, pool.InvalidParams},
		{"short dsts", context.Background(), false, 0, 1, nil, pool.InvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
			if tt.close {
				s.Close()
			}
			r, err := s.Reserve(tt.ctx, items, make([][]byte, tt.dsts), make([]pool.Code, tt.codes))
			if r != nil || err == nil || (tt.wantIs != nil && !errors.Is(err, tt.wantIs)) || pool.CodeOf(err) != tt.wantCode {
				t.Errorf("Reserve(%s) = %v, %v, want nil and an error (is %v, code %v)", tt.name, r, err, tt.wantIs, tt.wantCode)
			}
			if tt.close {
				return
			}
			if st := stat(t, s); st.UsedBytes != 0 {
				t.Errorf("UsedBytes after a failed Reserve = %d, want 0", st.UsedBytes)
			}
		})
	}
}

// TestReservationNotEvicted fills a pool past its watermark with reserved
// objects: eviction counts and takes only published ones.
func TestReservationNotEvicted(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 10 * 1024, Segments: 1})
	for _, k := range keysN("pub", 4) {
		mustPut(t, s, sized(k, 1024, pool.PutOptions{}))
	}
	var items []pool.PutItem
	for _, k := range keysN("res", 6) {
		items = append(items, inPlace(k, 1024, pool.PutOptions{}))
	}
	r, _, _ := reserve(t, s, items...)
	clock.Advance(time.Hour)
	step := s.RunEvictionStep()
	if !step.Ran || step.Base != 4 || step.Pass1+step.Pass2 == 0 {
		t.Errorf("RunEvictionStep() = %+v, want a step over the 4 published objects", step)
	}
	r.Commit()
	if got := present(t, s, keysN("res", 6)...); !cmp.Equal(got, []int{1, 1, 1, 1, 1, 1}) {
		t.Errorf("Exist(reserved keys) after eviction and Commit = %v, want all present", got)
	}
	checkInvariants(t, s)
}

// TestCloseWaitsForReservation closes a store while a goroutine still
// writes its reservation: Close returns only after the Commit or Abort,
// and the snapshot it saves holds what was committed.
func TestCloseWaitsForReservation(t *testing.T) {
	for _, commit := range []bool{true, false} {
		t.Run(map[bool]string{true: "commit", false: "abort"}[commit], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pool.snap")
			opts := Options{Capacity: 1 << 20, Segments: 1, SnapshotPath: path}
			s, _ := newTestStore(t, opts)
			r, dsts, _ := reserve(t, s, inPlace("k", 5, pool.PutOptions{}))
			var finished atomic.Bool
			var wg sync.WaitGroup
			wg.Go(func() {
				time.Sleep(20 * time.Millisecond) // let Close start waiting
				copy(dsts[0], "bytes")
				finished.Store(true)
				if commit {
					r.Commit()
				} else {
					r.Abort()
				}
			})
			if err := s.Close(); err != nil {
				t.Fatalf("Close() = %v", err)
			}
			if !finished.Load() {
				t.Errorf("Close() returned before the reservation was finished")
			}
			wg.Wait()
			loaded, _ := newTestStore(t, opts)
			want, wantN := "bytes", int64(5)
			if !commit {
				want, wantN = "", int64(pool.ObjectNotFound)
			}
			if bufs, n := getKeys(t, loaded, 8, "k"); n[0] != wantN || string(bufs[0][:max(n[0], 0)]) != want {
				t.Errorf("Get(k) from the saved snapshot = %q, %d, want %q, %d", bufs[0][:max(n[0], 0)], n[0], want, wantN)
			}
		})
	}
}

func TestSnapshotExcludesReservation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pool.snap")
	opts := Options{Capacity: 1 << 20, Segments: 2, SnapshotPath: path}
	s, _ := newTestStore(t, opts)
	mustPut(t, s, pool.PutItem{Key: "kept", Value: []byte("v")})
	r, _, _ := reserve(t, s, inPlace("pending", 1000, pool.PutOptions{}))
	defer r.Commit()
	if err := s.Snapshot(context.Background()); err != nil {
		t.Fatalf("Snapshot() = %v", err)
	}
	loaded, err := New(opts)
	if err != nil {
		t.Fatalf("New(%+v) = %v", opts, err)
	}
	defer func() { loaded.opts.SnapshotPath = ""; loaded.Close() }() // keep the file as saved
	if got := present(t, loaded, "kept", "pending"); !cmp.Equal(got, []int{1, 0}) {
		t.Errorf("Exist(kept, pending) after loading a snapshot taken while pending was reserved = %v, want [1 0]", got)
	}
	if st := stat(t, loaded); st.UsedBytes != 1 || st.Keys != 1 {
		t.Errorf("loaded Stat() = %d bytes, %d keys, want 1, 1", st.UsedBytes, st.Keys)
	}
	checkInvariants(t, loaded)
}

// TestReserveConcurrent reserves, writes and commits from several
// goroutines while others view the same keys (run with -race).
func TestReserveConcurrent(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 4 << 20, Segments: 4})
	keys := keysN("c", 256)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			mine := keys[g*64 : (g+1)*64]
			items := make([]pool.PutItem, len(mine))
			for i, k := range mine {
				items[i] = inPlace(k, 100, pool.PutOptions{})
			}
			dsts, codes := make([][]byte, len(items)), make([]pool.Code, len(items))
			r, err := s.Reserve(context.Background(), items, dsts, codes)
			if err != nil {
				t.Errorf("Reserve = %v", err)
				return
			}
			for i := range dsts {
				copy(dsts[i], mine[i])
			}
			r.Commit()
		})
		wg.Go(func() {
			for range 20 {
				views, codes := make([][]byte, len(keys)), make([]pool.Code, len(keys))
				release := s.ViewBatch(keys, views, codes)
				for i, c := range codes {
					if c == pool.OK && string(views[i][:len(keys[i])]) != keys[i] {
						t.Errorf("ViewBatch(%s) = %q..., want the committed bytes", keys[i], views[i][:len(keys[i])])
					}
				}
				release()
			}
		})
	}
	wg.Wait()
	if st := stat(t, s); st.Keys != 256 {
		t.Errorf("Stat().Keys after concurrent reservations = %d, want 256", st.Keys)
	}
	checkInvariants(t, s)
}

// Commit publishes each placed item with its own item's options, whatever
// the items refused between them.
func TestReserveOptionsFollowTheirItems(t *testing.T) {
	type published struct {
		Soft  bool
		Hard  bool
		Group string
	}
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2, SoftPinTTL: time.Minute})
	mustPut(t, s, sized("dup", 8, pool.PutOptions{}))
	items := []pool.PutItem{
		inPlace("a", 8, pool.PutOptions{}),
		inPlace("dup", 8, pool.PutOptions{HardPin: true}),
		inPlace("b", 8, pool.PutOptions{SoftPin: pool.SoftPinEnable}),
		inPlace("c", 8, pool.PutOptions{}),
		inPlace("", 8, pool.PutOptions{GroupID: "bad"}),
		inPlace("d", 8, pool.PutOptions{HardPin: true}),
		inPlace("e", 8, pool.PutOptions{GroupID: "g"}),
		inPlace("f", 8, pool.PutOptions{}),
	}
	r, _, _ := reserve(t, s, items...)
	r.Commit()
	want := map[string]published{"a": {}, "dup": {}, "b": {Soft: true}, "c": {}, "d": {Hard: true}, "e": {Group: "g"}, "f": {}}
	got := map[string]published{}
	for key := range want {
		o := s.lookup(key)
		p := published{Soft: o.softPinUntil() != 0, Hard: o.hardPinned()}
		if g := o.group(); g != nil {
			p.Group = g.id
		}
		got[key] = p
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects after Commit (-want +got):\n%s", diff)
	}
}
