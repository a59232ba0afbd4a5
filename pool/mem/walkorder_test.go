package mem

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSortWalk holds sortWalk to slices.Sort on walks of every size
// around the cut to counting passes, with ranks from one value (every
// key tied) to the whole range.
func TestSortWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, sortSmallWalk, sortSmallWalk + 1, 64, 1000, 5000} {
		for _, ranks := range []int{1, 2, 33, MetadataShards} {
			t.Run(fmt.Sprintf("n=%d/ranks=%d", n, ranks), func(t *testing.T) {
				order := make([]uint64, n)
				for i := range order {
					order[i] = uint64(rng.IntN(ranks))<<32 | uint64(i)
				}
				want := slices.Clone(order)
				slices.Sort(want)
				got := slices.Clone(order)
				sortWalk(got, make([]uint64, n))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("sortWalk(%d keys of %d ranks) differs from slices.Sort (-want +got):\n%s", n, ranks, diff)
				}
			})
		}
	}
}

// BenchmarkGrantLeases64 leases one page call's 64 present keys: the walk
// order and the grants, without the lookups.
func BenchmarkGrantLeases64(b *testing.B) {
	const n = 64
	s := newGetBenchStore(b, 64, n)
	sc := getLeaseScratch(n)
	s.lookupAllPublished(keysN("get/", n), sc.objs)
	b.ReportAllocs()
	for b.Loop() {
		s.grantLeases(sc.objs, sc)
	}
}
