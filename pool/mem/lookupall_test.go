package mem

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// A batch mixing keys of every form, present, absent, repeated and
// reserved but not committed, longer than a run of the phased lookup, is
// answered key by key as single lookups would be, by each of the batch
// calls that share the phased lookup.
func TestBatchLookupsKeyByKey(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	const other = "fedcba9876543210fedcba9876543210"
	var stored, batch []string
	var want []int
	for _, tc := range packCases {
		if tc.key == "" {
			continue
		}
		stored = append(stored, tc.key)
		batch = append(batch, tc.key, tc.key+"x", tc.key)
		want = append(want, 1, 0, 1)
		if tc.packed {
			absent := tc.key[:len(tc.key)-hashDigits] + other
			batch = append(batch, absent)
			want = append(want, 0)
		}
	}
	batch = append(batch, "new@"+other) // a prefix the store has not seen
	want = append(want, 0)
	for _, k := range stored {
		mustPut(t, s, sized(k, 8, pool.PutOptions{}))
	}
	reserved := "reserved@" + testHash
	r, err := s.Reserve(context.Background(), []pool.PutItem{{Key: reserved, Size: 8}}, make([][]byte, 1), make([]pool.Code, 1))
	if err != nil {
		t.Fatalf("Reserve(%q) = %v", reserved, err)
	}
	defer r.Abort()
	batch = append(batch, reserved)
	want = append(want, 0)
	for len(batch) <= 2*lookupRun { // over several runs of the phases
		batch, want = append(batch, batch...), append(want, want...)
	}
	batch, want = append(batch, stored[0]), append(want, 1) // the last key found

	for _, leasing := range []bool{false, true} {
		got := make([]int, len(batch))
		exist := s.Exist
		if leasing {
			exist = s.ExistLeasing
		}
		if err := exist(context.Background(), batch, got); err != nil {
			t.Fatalf("Exist(leasing %t) = %v", leasing, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Exist(leasing %t) of %q (-want +got):\n%s", leasing, batch, diff)
		}
	}
	sizes := make([]int64, len(batch))
	if err := s.Sizes(context.Background(), batch, sizes); err != nil {
		t.Fatalf("Sizes = %v", err)
	}
	for i, n := range sizes {
		if wantN := map[int]int64{0: int64(pool.ObjectNotFound), 1: 8}[want[i]]; n != wantN {
			t.Errorf("Sizes(%q) = %d, want %d", batch[i], n, wantN)
		}
	}
}
