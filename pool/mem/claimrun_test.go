package mem

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// A call longer than a run of claims answers each item as one claim at a
// time would: keys put before and keys repeated in the call, within a run
// or across runs, exist; the first writer's bytes stay; invalid items are
// refused wherever they fall; Reserve answers the same as Put.
func TestClaimsAcrossRuns(t *testing.T) {
	const n = 3*lookupRun + 7
	before := map[int]bool{0: true, lookupRun - 1: true, lookupRun: true, 2*lookupRun + 3: true}
	repeats := map[int]int{5: 2*lookupRun + 1, lookupRun + 1: lookupRun + 2, 10: 11, n - 2: n - 1}
	invalid := map[int]bool{lookupRun - 2: true, 2 * lookupRun: true}
	for _, reserve := range []bool{false, true} {
		t.Run(fmt.Sprintf("reserve=%v", reserve), func(t *testing.T) {
			s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2})
			items := make([]pool.PutItem, n)
			want := make([]pool.Code, n)
			var old []pool.PutItem
			for i := range items {
				items[i], want[i] = sized(fmt.Sprintf("k%03d", i), 16, pool.PutOptions{}), pool.OK
				items[i].Value[0] = byte(i)
				switch {
				case before[i]:
					old = append(old, sized(items[i].Key, 16, pool.PutOptions{}))
					want[i] = pool.ObjectAlreadyExists
				case invalid[i]:
					items[i].Key = ""
					want[i] = pool.InvalidParams
				}
			}
			for first, again := range repeats {
				items[again].Key, want[again] = items[first].Key, pool.ObjectAlreadyExists
			}
			mustPut(t, s, old...)
			got := putOrReserve(t, s, items, reserve)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("codes of a call of %d items (-want +got):\n%s", n, diff)
			}
			if st := stat(t, s); st.PutsExisting != int64(len(before)+len(repeats)) {
				t.Errorf("PutsExisting = %d, want %d", st.PutsExisting, len(before)+len(repeats))
			}
			for first := range repeats {
				bufs, _ := getKeys(t, s, 16, items[first].Key)
				if bufs[0][0] != byte(first) {
					t.Errorf("Get(%s) starts %d, want the first writer's %d", items[first].Key, bufs[0][0], first)
				}
			}
			checkInvariants(t, s)
		})
	}
}

// putOrReserve puts items, or reserves them, writes their bytes in place
// and commits, and returns their codes.
func putOrReserve(t *testing.T, s *Store, items []pool.PutItem, reserve bool) []pool.Code {
	t.Helper()
	if !reserve {
		return put(t, s, items...)
	}
	codes, dsts := make([]pool.Code, len(items)), make([][]byte, len(items))
	r, err := s.Reserve(context.Background(), items, dsts, codes)
	if err != nil {
		t.Fatalf("Reserve = %v", err)
	}
	for i, d := range dsts {
		copy(d, items[i].Value)
	}
	r.Commit()
	return codes
}
