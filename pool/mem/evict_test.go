package mem

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kvctl/kvctl/pool"
)

func TestEvictionTargets(t *testing.T) {
	tests := []struct {
		used, hw, ratio    float64
		target, lowerbound float64
	}{
		{0.95, 0.90, 0.05, 0.10, 0.05},
		{0.99, 0.90, 0.05, 0.14, 0.09},
		{1.00, 0.90, 0.05, 0.15, 0.10},
		{0.50, 0.90, 0.05, 0.05, 0.025}, // after an allocation failure
		{0.91, 0.90, 0.05, 0.06, 0.03},
		{0.85, 0.80, 0.20, 0.25, 0.125},
	}
	for _, tt := range tests {
		target, lower := EvictionTargets(tt.used, tt.hw, tt.ratio)
		if math.Abs(target-tt.target) > 1e-12 || math.Abs(lower-tt.lowerbound) > 1e-12 {
			t.Errorf("EvictionTargets(%v, %v, %v) = %v, %v, want %v, %v", tt.used, tt.hw, tt.ratio, target, lower, tt.target, tt.lowerbound)
		}
	}
}

// fillStore puts n objects of 1 KiB named k0000... into a 100 KiB
// single-segment store, one per clock tick, with opts(i) as options.
func fillStore(t *testing.T, n int, extra Options, opts func(i int) pool.PutOptions) (*Store, *fakeClock, []string) {
	t.Helper()
	extra.Capacity, extra.Segments = 100*1024, 1
	s, clock := newTestStore(t, extra)
	keys := keysN("k", n)
	for i, k := range keys {
		var o pool.PutOptions
		if opts != nil {
			o = opts(i)
		}
		mustPut(t, s, sized(k, 1024, o))
		clock.Advance(time.Millisecond)
	}
	return s, clock, keys
}

// gone lists the indexes of keys that no longer exist.
func gone(t *testing.T, s *Store, keys []string) []int {
	t.Helper()
	var out []int
	for i, st := range present(t, s, keys...) {
		if st == 0 {
			out = append(out, i)
		}
	}
	return out
}

func span0(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestEvictionPasses(t *testing.T) {
	softFrom := func(first int) func(int) pool.PutOptions {
		return func(i int) pool.PutOptions {
			if i >= first {
				return pool.PutOptions{SoftPin: pool.SoftPinEnable}
			}
			return pool.PutOptions{}
		}
	}
	tests := []struct {
		name  string
		n     int
		extra Options
		opts  func(int) pool.PutOptions
		want  EvictionStep
		gone  []int
	}{
		{"at the watermark nothing runs", 90, Options{}, nil,
			EvictionStep{UsedRatio: 0.9}, nil},
		{"pass 1 evicts the oldest tenth", 95, Options{}, nil,
			EvictionStep{Ran: true, UsedRatio: 0.95, Base: 95, Pass1: 10, Bytes: 10 * 1024}, span0(10)},
		{"full pool evicts 15%", 100, Options{}, nil,
			EvictionStep{Ran: true, UsedRatio: 1, Base: 100, Pass1: 15, Bytes: 15 * 1024}, span0(15)},
		{"pass 2 takes the oldest soft-pinned up to the lowerbound", 95, Options{}, softFrom(3),
			EvictionStep{Ran: true, UsedRatio: 0.95, Base: 95, Pass1: 3, Pass2: 2, Bytes: 5 * 1024}, span0(5)},
		{"pass 2 keeps soft-pinned objects when told", 95, Options{KeepSoftPinned: true}, softFrom(3),
			EvictionStep{Ran: true, UsedRatio: 0.95, Base: 95, Pass1: 3, Bytes: 3 * 1024}, span0(3)},
		{"hard-pinned objects are outside the base", 95, Options{}, func(i int) pool.PutOptions {
			return pool.PutOptions{HardPin: i < 45}
		}, EvictionStep{Ran: true, UsedRatio: 0.95, Base: 50, Pass1: 5, Bytes: 5 * 1024}, []int{45, 46, 47, 48, 49}},
		{"only hard-pinned objects: nothing to evict", 95, Options{}, func(int) pool.PutOptions {
			return pool.PutOptions{HardPin: true}
		}, EvictionStep{Ran: true, UsedRatio: 0.95}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, keys := fillStore(t, tt.n, tt.extra, tt.opts)
			got := s.RunEvictionStep()
			want := tt.want
			if want.Ran {
				want.Target, want.Lowerbound = EvictionTargets(want.UsedRatio, DefaultHighWatermark, DefaultEvictionRatio)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("RunEvictionStep() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.gone, gone(t, s, keys)); diff != "" {
				t.Errorf("evicted keys mismatch (-want +got):\n%s", diff)
			}
			st := stat(t, s)
			if st.EvictedKeys != int64(got.Pass1+got.Pass2) || st.EvictedBytes != got.Bytes || st.Keys != int64(tt.n-len(tt.gone)) {
				t.Errorf("Stat() evicted %d keys %d bytes, %d keys left; want %d, %d, %d", st.EvictedKeys, st.EvictedBytes, st.Keys, got.Pass1+got.Pass2, got.Bytes, tt.n-len(tt.gone))
			}
			checkInvariants(t, s)
		})
	}
}

func TestEvictionSkipsLeased(t *testing.T) {
	s, _, keys := fillStore(t, 95, Options{}, nil)
	getKeys(t, s, 1024, keys[0], keys[1])                           // leased until now+10 s
	s.ExistLeasing(context.Background(), keys[2:4], make([]int, 2)) // leased too
	s.Exist(context.Background(), keys[4:6], make([]int, 2))        // no lease
	if step := s.RunEvictionStep(); step.Pass1 != 10 {
		t.Fatalf("RunEvictionStep().Pass1 = %d, want 10", step.Pass1)
	}
	if diff := cmp.Diff([]int{4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, gone(t, s, keys)); diff != "" {
		t.Errorf("evicted with keys 0-3 leased (-want +got):\n%s", diff)
	}
}

// TestEvictionOrderFollowsLeaseDeadline checks the approximate LRU: a key
// read at t0 (deadline t0+10 s) goes after keys only published at t0 but
// before keys published at t0+11 s.
func TestEvictionOrderFollowsLeaseDeadline(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 100 * 1024, Segments: 1})
	mustPut(t, s, sized("read", 1024, pool.PutOptions{}), sized("old1", 1024, pool.PutOptions{}), sized("old2", 1024, pool.PutOptions{}))
	getKeys(t, s, 1024, "read")
	clock.Advance(11 * time.Second)
	late := keysN("late", 92)
	for _, k := range late {
		mustPut(t, s, sized(k, 1024, pool.PutOptions{}))
	}
	if step := s.RunEvictionStep(); step.Pass1 != 10 {
		t.Fatalf("RunEvictionStep().Pass1 = %d, want 10", step.Pass1)
	}
	got := present(t, s, "old1", "old2", "read", late[6], late[7])
	if want := []int{0, 0, 0, 0, 1}; !cmp.Equal(got, want) {
		t.Errorf("Exist(old1, old2, read, late6, late7) = %v, want %v", got, want)
	}
}

func TestSoftPinDeadlineFixedAtPublish(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 100 * 1024, Segments: 1})
	mustPut(t, s, sized("pinned", 1024, pool.PutOptions{SoftPin: pool.SoftPinEnable, SoftPinTTL: time.Minute}))
	if st := stat(t, s); st.SoftPinnedKeys != 1 {
		t.Errorf("Stat().SoftPinnedKeys = %d, want 1", st.SoftPinnedKeys)
	}
	clock.Advance(50 * time.Second)
	getKeys(t, s, 1024, "pinned") // lease to 60 s; the pin still ends at 60 s
	clock.Advance(10 * time.Second)
	if st := stat(t, s); st.SoftPinnedKeys != 0 {
		t.Errorf("Stat().SoftPinnedKeys after the TTL = %d, want 0", st.SoftPinnedKeys)
	}
	for _, k := range keysN("fill", 94) {
		mustPut(t, s, sized(k, 1024, pool.PutOptions{}))
	}
	if step := s.RunEvictionStep(); step.Pass1 != 10 || step.Pass2 != 0 {
		t.Errorf("RunEvictionStep() = pass 1 %d, pass 2 %d, want 10, 0", step.Pass1, step.Pass2)
	}
	if got := present(t, s, "pinned")[0]; got != 0 {
		t.Errorf("Exist(pinned) after its pin and lease ended = %d, want 0 (evicted first)", got)
	}
}

func TestSoftPinDefaultTTL(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	mustPut(t, s, sized("k", 8, pool.PutOptions{SoftPin: pool.SoftPinEnable}))
	clock.Advance(DefaultSoftPinTTL - time.Nanosecond)
	if st := stat(t, s); st.SoftPinnedKeys != 1 {
		t.Errorf("Stat().SoftPinnedKeys just before the default TTL = %d, want 1", st.SoftPinnedKeys)
	}
	clock.Advance(time.Nanosecond)
	if st := stat(t, s); st.SoftPinnedKeys != 0 {
		t.Errorf("Stat().SoftPinnedKeys at the default TTL = %d, want 0", st.SoftPinnedKeys)
	}
}

func TestHardPinNeverEvictedButRemovable(t *testing.T) {
	s, _, keys := fillStore(t, 100, Options{}, func(i int) pool.PutOptions { return pool.PutOptions{HardPin: i == 0} })
	for range 20 {
		s.EvictNow()
	}
	if got := present(t, s, keys[0])[0]; got != 1 {
		t.Errorf("Exist(hard-pinned) after 20 eviction steps = %d, want 1", got)
	}
	if got := removeKeys(t, s, false, keys[0])[0]; got != pool.OK {
		t.Errorf("Remove(hard-pinned) = %v, want OK", got)
	}
}

func TestEvictionGroups(t *testing.T) {
	grouped := func(members map[int]pool.PutOptions) func(int) pool.PutOptions {
		return func(i int) pool.PutOptions { return members[i] }
	}
	g := func(o pool.PutOptions) pool.PutOptions { o.GroupID = "g"; return o }
	tests := []struct {
		name    string
		members map[int]pool.PutOptions
		lease   []int
		gone    []int
	}{
		{"whole group goes with its oldest member, and pass 1 still takes every candidate up to the cut-off",
			map[int]pool.PutOptions{0: g(pool.PutOptions{}), 50: g(pool.PutOptions{}), 90: g(pool.PutOptions{})},
			nil, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 50, 90}},
		{"a leased member saves the group",
			map[int]pool.PutOptions{0: g(pool.PutOptions{}), 50: g(pool.PutOptions{}), 90: g(pool.PutOptions{})},
			[]int{90}, span0(11)[1:]},
		{"pinned members stay",
			map[int]pool.PutOptions{0: g(pool.PutOptions{}), 50: g(pool.PutOptions{HardPin: true}), 90: g(pool.PutOptions{SoftPin: pool.SoftPinEnable})},
			nil, span0(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, keys := fillStore(t, 95, Options{}, grouped(tt.members))
			for _, i := range tt.lease {
				getKeys(t, s, 1024, keys[i])
			}
			s.EvictNow()
			if diff := cmp.Diff(tt.gone, gone(t, s, keys)); diff != "" {
				t.Errorf("evicted keys mismatch (-want +got):\n%s", diff)
			}
			checkInvariants(t, s)
		})
	}
}

func TestAllocationFailureForcesEviction(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 10 * 1024, Segments: 1})
	mustPut(t, s, sized("big", 6*1024, pool.PutOptions{}))
	clock.Advance(time.Second)
	if step := s.RunEvictionStep(); step.Ran {
		t.Fatalf("RunEvictionStep() at 60%% used ran: %+v", step)
	}
	if got := put(t, s, sized("next", 5*1024, pool.PutOptions{})); got[0] != pool.NoAvailableHandle {
		t.Fatalf("Put(5 KiB into 4 KiB free) = %v, want NO_AVAILABLE_HANDLE", got[0])
	}
	if st := stat(t, s); st.AllocationFailure != 1 {
		t.Errorf("Stat().AllocationFailure = %d, want 1", st.AllocationFailure)
	}
	step := s.RunEvictionStep()
	if !step.Ran || step.Pass1 != 1 || math.Abs(step.Target-DefaultEvictionRatio) > 1e-12 {
		t.Errorf("RunEvictionStep() after the failure = %+v, want a run evicting 1 at target %v", step, DefaultEvictionRatio)
	}
	mustPut(t, s, sized("next", 5*1024, pool.PutOptions{}))
	if step := s.RunEvictionStep(); step.Ran {
		t.Errorf("RunEvictionStep() after a successful eviction ran again: %+v", step)
	}
	if st := stat(t, s); st.EvictionAttempts != 1 {
		t.Errorf("Stat().EvictionAttempts = %d, want 1", st.EvictionAttempts)
	}
}

func TestAllocationFailureWithNothingEvictable(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 4 * 1024, Segments: 1})
	mustPut(t, s, sized("pinned", 3*1024, pool.PutOptions{HardPin: true}))
	put(t, s, sized("next", 2*1024, pool.PutOptions{}))
	if step := s.RunEvictionStep(); !step.Ran || step.Base != 0 {
		t.Errorf("RunEvictionStep() = %+v, want a run over an empty base", step)
	}
	if step := s.RunEvictionStep(); step.Ran {
		t.Errorf("RunEvictionStep() again = %+v, want no run (the flag is cleared when nothing can go)", step)
	}
}

func TestBackgroundEviction(t *testing.T) {
	s, err := New(Options{Capacity: 100 * 1024, Segments: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, k := range keysN("k", 99) {
		mustPut(t, s, sized(k, 1024, pool.PutOptions{}))
	}
	deadline := time.Now().Add(10 * time.Second)
	for stat(t, s).EvictedKeys == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no background eviction within 10 s at 99%% used")
		}
		time.Sleep(EvictionInterval)
	}
}

func TestByAgePeeksInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 63, 64, 65, 1000} {
		var q byAge
		for i := range n {
			q.c = append(q.c, candidate{lease: rng.Int64N(50), seq: uint64(i), o: &object{seq: uint64(i)}})
		}
		want := slices.Clone(q.c)
		slices.SortFunc(want, compareCandidates)
		for i := range n {
			if k := min(i%5+1, len(q.c)); i%7 == 3 {
				if got := q.nth(k); got.o != want[i+k-1].o {
					t.Fatalf("n=%d: nth(%d) after %d pops = seq %d, want seq %d", n, k, i, got.seq, want[i+k-1].seq)
				}
			}
			c, ok := q.peek()
			if !ok || c.o != want[i].o {
				t.Fatalf("n=%d: peek %d = seq %v, %t, want seq %d", n, i, c.seq, ok, want[i].seq)
			}
			q.pop()
		}
		if c, ok := q.peek(); ok {
			t.Errorf("n=%d: peek after the last = seq %d, want none", n, c.seq)
		}
	}
}
