package mem

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// TestPass1EvictsUpToTheCutoff is the fidelity spec's S5: a group of 10
// whose oldest member is the oldest candidate, in a full pool whose step
// takes 10 (base 95, 10 wanted). The master's pass 1 evicts every
// candidate at or before the 10th oldest's deadline although the group
// alone made the count: 19 objects (kvctl took 10 before).
func TestPass1EvictsUpToTheCutoff(t *testing.T) {
	group := map[int]bool{0: true}
	for i := 86; i < 95; i++ {
		group[i] = true
	}
	s, _, keys := fillStore(t, 95, Options{}, func(i int) pool.PutOptions {
		if group[i] {
			return pool.PutOptions{GroupID: "g"}
		}
		return pool.PutOptions{}
	})
	step := s.RunEvictionStep()
	if step.Pass1 != 19 || step.Pass2 != 0 {
		t.Errorf("RunEvictionStep() = pass 1 %d, pass 2 %d, want 19, 0", step.Pass1, step.Pass2)
	}
	want := span0(10)
	for i := 86; i < 95; i++ {
		want = append(want, i)
	}
	if diff := cmp.Diff(want, gone(t, s, keys)); diff != "" {
		t.Errorf("evicted keys mismatch (-want +got):\n%s", diff)
	}
	checkInvariants(t, s)
}

// TestBaseExcludesObjectsBeingRead checks the master's eviction base
// (fidelity spec P6): an object being read has no evictable replica, so
// it is outside the base, and a group is skipped only for a leased
// member: a member being read after its lease ended stays while the rest
// of its group goes.
func TestBaseExcludesObjectsBeingRead(t *testing.T) {
	s, clock, keys := fillStore(t, 95, Options{}, func(i int) pool.PutOptions {
		if i < 2 {
			return pool.PutOptions{GroupID: "g"}
		}
		return pool.PutOptions{}
	})
	views := make([][]byte, 6)
	release := s.ViewBatch(keys[1:7], views, make([]pool.Code, 6))
	defer release()
	clock.Advance(DefaultLeaseTTL + time.Second) // the views' leases end; the views stay
	if err := s.ExistLeasing(context.Background(), keys[7:], make([]int, len(keys)-7)); err != nil {
		t.Fatal(err)
	}
	step := s.RunEvictionStep()
	if step.Base != 89 {
		t.Errorf("RunEvictionStep().Base = %d, want 89 (95 less 6 being read)", step.Base)
	}
	// The only candidate is k0000: k0001, its group's other member, is
	// being read but not leased, so the group goes except for it.
	want := []int{0}
	if diff := cmp.Diff(want, gone(t, s, keys)); diff != "" {
		t.Errorf("evicted keys mismatch (-want +got):\n%s", diff)
	}
	checkInvariants(t, s)
}
