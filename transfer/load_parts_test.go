package transfer

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// partStore is a mapStore that can also get parts of values
// (pool.PartGetter). goneAt makes a key's parts from an offset on find it
// absent, as if it were evicted between two parts.
type partStore struct {
	*mapStore
	goneAt    map[string]int64
	partCalls int
	parts     map[string][]int64 // the offsets asked of each key
}

func newPartStore() *partStore {
	return &partStore{mapStore: newMapStore(), goneAt: map[string]int64{}, parts: map[string][]int64{}}
}

func (s *partStore) GetParts(ctx context.Context, keys []string, offs []int64, bufs [][]byte, n []int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partCalls++
	for i, k := range keys {
		s.parts[k] = append(s.parts[k], offs[i])
		v, ok := s.vals[k]
		at, gone := s.goneAt[k]
		switch {
		case !ok || gone && offs[i] >= at:
			n[i] = int64(pool.ObjectNotFound)
		case offs[i] < 0 || offs[i]+int64(len(bufs[i])) > int64(len(v)):
			n[i] = int64(pool.InvalidParams)
		default:
			copy(bufs[i], v[offs[i]:])
			n[i] = int64(len(v))
		}
	}
	return nil
}

// partsLayout has pages larger than PartBytes in group 0 (three parts
// each, not whole cache lines) and smaller ones in group 1, which a set
// of both loads in group 0's three parts too.
var partsLayout = Layout{Groups: []LayerGroup{
	{RegionBytes: []int64{350000, 250007}},
	{RegionBytes: []int64{100000, 30000}},
}}

// partsFixture is a fixture of partsLayout over a partStore, whose
// loader's options ask for a crew of four.
func partsFixture(t *testing.T, pages int) (*fixture, *partStore, Options) {
	t.Helper()
	ps := newPartStore()
	f := newLayoutFixture(t, partsLayout, pages, ps.mapStore)
	o := f.options()
	o.Pool, o.Parallel = ps, 4
	return f, ps, o
}

func TestLoadInParts(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		t.Run(string(mode), func(t *testing.T) {
			f, ps, o := partsFixture(t, 24)
			o.Mode = mode
			var jobs []LoadJob
			var all []PageRef
			for j := range 4 {
				rs := append(refs(fmt.Sprintf("g0r%d", j), 0, j*6, 6), refs(fmt.Sprintf("g1r%d", j), 1, j*6, 6)...)
				f.seed(t, rs)
				jobs = append(jobs, LoadJob{RequestID: fmt.Sprint(j), Pages: rs})
				all = append(all, rs...)
			}
			l := openLoader(t, o)
			g := l.Geometry()
			if g.PageParts != 3 || g.SetPages != int(LoadSetBytes/600007) {
				t.Errorf("Geometry() = %+v, want pages in 3 parts, sets of %d pages", g, LoadSetBytes/600007)
			}
			results, err := l.Load(context.Background(), jobs)
			if err != nil {
				t.Fatalf("Load error = %v", err)
			}
			for _, r := range results {
				if !r.OK() || r.Landed != 12 {
					t.Errorf("Load result %+v, want 12 pages landed", r)
				}
			}
			f.checkLanded(t, all)
			if ps.getCalls != 0 || ps.partCalls != 3*len(all) {
				t.Errorf("%d Gets and %d GetParts calls, want 0 and 3 a page (%d)", ps.getCalls, ps.partCalls, 3*len(all))
			}
			// Group 0's parts: 600007 bytes in 200064-byte cache-line parts.
			if got, want := slices.Sorted(slices.Values(ps.parts["g0r2-13"])), []int64{0, 200064, 400128}; !slices.Equal(got, want) {
				t.Errorf("parts of a 600007-byte page asked from %v, want %v", got, want)
			}
		})
	}
}

// TestLoadPartGone loses one page's last part: its request fails with the
// page listed once, no page of it in the same set lands, and the other
// requests load whole.
func TestLoadPartGone(t *testing.T) {
	f, ps, o := partsFixture(t, 24)
	o.Mode = cuda.ModeKernel
	a, b := refs("a", 0, 0, 4), refs("b", 0, 4, 4)
	f.seed(t, append(a, b...))
	ps.goneAt["a-1"] = 400000
	l := openLoader(t, o)
	results, err := l.Load(context.Background(), []LoadJob{{RequestID: "a", Pages: a}, {RequestID: "b", Pages: b}})
	if err != nil {
		t.Fatalf("Load error = %v", err)
	}
	want := []LoadResult{
		{RequestID: "a", Pages: 4, Missing: []string{"a-1"}},
		{RequestID: "b", Pages: 4, Landed: 4, Bytes: 4 * 600007},
	}
	if diff := cmp.Diff(want, results, cmpopts.IgnoreFields(LoadResult{}, "Err")); diff != "" {
		t.Errorf("Load results mismatch (-want +got):\n%s", diff)
	}
	f.checkLanded(t, b)
	for page := range 4 {
		if got := f.gpuPage(t, 0, page); !bytes.Equal(got, make([]byte, len(got))) {
			t.Errorf("GPU page %d (request a, which lost a-1's last part) was written, want it left alone", page)
		}
	}
}

func TestPartOf(t *testing.T) {
	tests := []struct {
		bytes int64
		parts int
		want  [][2]int64
	}{
		{600007, 3, [][2]int64{{0, 200064}, {200064, 200064}, {400128, 199879}}},
		{130000, 3, [][2]int64{{0, 43392}, {43392, 43392}, {86784, 43216}}},
		{100, 3, [][2]int64{{0, 64}, {64, 36}, {100, 0}}},
		{1 << 20, 4, [][2]int64{{0, 256 << 10}, {256 << 10, 256 << 10}, {512 << 10, 256 << 10}, {768 << 10, 256 << 10}}},
	}
	for _, tt := range tests {
		var got [][2]int64
		for p := range tt.parts {
			off, n := partOf(tt.bytes, p, tt.parts)
			got = append(got, [2]int64{off, n})
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("parts of %d bytes in %d = %v, want %v", tt.bytes, tt.parts, got, tt.want)
		}
	}
}

func TestParted(t *testing.T) {
	parts := newPartStore()
	tests := []struct {
		name    string
		shape   setShape
		store   pool.Store
		slot    int64
		threads int
		want    int
	}{
		{"4 MiB pages", loadSets, parts, 4 << 20, 16, 16},
		{"a part and a byte", loadSets, parts, PartBytes + 1, 16, 2},
		{"pages of a part", loadSets, parts, PartBytes, 16, 1},
		{"one thread", loadSets, parts, 4 << 20, 1, 1},
		{"a pool without parts", loadSets, newMapStore(), 4 << 20, 16, 1},
		{"saves to a pool without reservations", saveSets, parts, 4 << 20, 16, 1},
		{"saves to a pool that reserves", saveSets, newMemPool(t, 1<<20), 4 << 20, 16, 16},
	}
	for _, tt := range tests {
		shape, got := tt.shape.parted(tt.store, tt.slot, tt.threads)
		if got != tt.want || (got > 1) != (shape.perThread == 0) {
			t.Errorf("%s: parted = %+v, %d parts; want %d parts, and sets that grow only when whole", tt.name, shape, got, tt.want)
		}
	}
}
