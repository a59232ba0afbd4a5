package transfer

import (
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/crew"
)

// TestResolveAllParallel resolves enough pages to split the work, with bad
// references in two jobs: the first bad job in job order is reported, and
// the good jobs' pages are in order.
func TestResolveAllParallel(t *testing.T) {
	f := newFixture(t, 16, newMapStore())
	const jobs, per = 1200, 40 // 48,000 pages: several goroutines
	refs := jobsRefs16(jobs, per)
	cr := crew.New(3, crew.DefaultPark, nil)
	defer cr.Close()
	items, bad, err := resolveAll(cr, nil, f.pools, jobs, func(j int) []PageRef { return refs[j] }, nil)
	if err != nil || bad != -1 || len(items) != jobs*per {
		t.Fatalf("resolveAll = %d items, job %d, %v; want %d items, no error", len(items), bad, err, jobs*per)
	}
	for i, it := range items {
		if int(it.job) != i/per || it.key != refs[i/per][i%per].Key || int(it.page) != i%16 {
			t.Fatalf("item %d = job %d %q page %d, want job %d %q page %d", i, it.job, it.key, it.page, i/per, refs[i/per][i%per].Key, i%16)
		}
	}
	refs[1100][3].Page = 99
	refs[700][0].Key = ""
	_, bad, err = resolveAll(cr, nil, f.pools, jobs, func(j int) []PageRef { return refs[j] }, nil)
	if bad != 700 || err == nil || !strings.Contains(err.Error(), "empty key") {
		t.Errorf("resolveAll with bad jobs 700 and 1100 = job %d, %v; want job 700, empty key", bad, err)
	}
}

// TestResolveAllRunsMeanwhileAsTheCrewResolves checks that meanwhile runs
// once, after the parts were posted (a helper takes one while it runs),
// and also when a reference is bad.
func TestResolveAllRunsMeanwhileAsTheCrewResolves(t *testing.T) {
	f := newFixture(t, 16, newMapStore())
	const jobs, per = 400, 40 // 16,000 pages: several parts
	refs := jobsRefs16(jobs, per)
	var looked atomic.Int64 // pagesOf's calls: jobs of them before the post
	pagesOf := func(j int) []PageRef { looked.Add(1); return refs[j] }
	cr := crew.New(3, crew.DefaultPark, nil)
	defer cr.Close()
	for _, bad := range []bool{false, true} {
		if bad {
			refs[jobs-1][0].Key = ""
		}
		looked.Store(0)
		calls := 0
		meanwhile := func() {
			calls++
			for deadline := time.Now().Add(10 * time.Second); looked.Load() <= jobs; {
				if time.Now().After(deadline) {
					t.Error("meanwhile: no helper took a part while it ran")
					return
				}
				runtime.Gosched()
			}
		}
		if _, _, err := resolveAll(cr, nil, f.pools, jobs, pagesOf, meanwhile); (err != nil) != bad || calls != 1 {
			t.Errorf("resolveAll (a bad reference: %v) = %v, meanwhile ran %d times; want an error only with the bad reference, meanwhile once", bad, err, calls)
		}
	}
}

// refs16 are n references of job j to GPU pages 0-15 of group 0.
func refs16(j, n int) []PageRef {
	out := make([]PageRef, n)
	for i := range out {
		out[i] = PageRef{Key: "r-" + strconv.Itoa(j*n+i), Page: (j*n + i) % 16}
	}
	return out
}

// jobsRefs16 is the references of jobs jobs of per pages each (refs16).
func jobsRefs16(jobs, per int) [][]PageRef {
	refs := make([][]PageRef, jobs)
	for j := range refs {
		refs[j] = refs16(j, per)
	}
	return refs
}

// TestResolveAllSplitsOneJob resolves one job large enough to be split
// among goroutines: its pages come out in order, and with two bad
// references in different parts the first is reported.
func TestResolveAllSplitsOneJob(t *testing.T) {
	f := newFixture(t, 16, newMapStore())
	const pages = 48000
	refs := [][]PageRef{refs16(0, 5), refs16(1, pages), {}, refs16(3, 7)}
	pagesOf := func(j int) []PageRef { return refs[j] }
	cr := crew.New(3, crew.DefaultPark, nil)
	defer cr.Close()
	items, bad, err := resolveAll(cr, nil, f.pools, len(refs), pagesOf, nil)
	if err != nil || bad != -1 || len(items) != pages+12 {
		t.Fatalf("resolveAll = %d items, job %d, %v; want %d items, no error", len(items), bad, err, pages+12)
	}
	at := 0
	for j, rs := range refs {
		for _, r := range rs {
			if it := items[at]; int(it.job) != j || it.key != r.Key || int(it.page) != r.Page {
				t.Fatalf("item %d = job %d %q page %d, want job %d %q page %d", at, it.job, it.key, it.page, j, r.Key, r.Page)
			}
			at++
		}
	}
	refs[1][40000].Key = ""
	refs[1][10000].Page = 99
	_, bad, err = resolveAll(cr, nil, f.pools, len(refs), pagesOf, nil)
	if bad != 1 || err == nil || !strings.Contains(err.Error(), "page 10000") {
		t.Errorf("resolveAll with bad pages 10000 and 40000 of job 1 = job %d, %v; want job 1, page 10000", bad, err)
	}
}

// TestResolveAllNamesBadReferences checks each kind of bad reference
// (negative numbers included) is refused with its page, key and range.
func TestResolveAllNamesBadReferences(t *testing.T) {
	f := newFixture(t, 16, newMapStore()) // two layer groups of 16 pages
	cr := crew.New(1, crew.DefaultPark, nil)
	defer cr.Close()
	tests := []struct {
		ref  PageRef
		want string
	}{
		{PageRef{Key: ""}, "page 2: empty key"},
		{PageRef{Key: "k", LayerGroup: 2}, `page 2 ("k"): layer group 2, want 0 to 1`},
		{PageRef{Key: "k", LayerGroup: -1}, `page 2 ("k"): layer group -1, want 0 to 1`},
		{PageRef{Key: "k", LayerGroup: 1, Page: 16}, `page 2 ("k"): GPU page 16 of layer group 1, want 0 to 15`},
		{PageRef{Key: "k", Page: -1}, `page 2 ("k"): GPU page -1 of layer group 0, want 0 to 15`},
	}
	for _, tt := range tests {
		refs := [][]PageRef{refs16(0, 4), refs16(1, 4)}
		refs[1][2] = tt.ref
		_, bad, err := resolveAll(cr, nil, f.pools, len(refs), func(j int) []PageRef { return refs[j] }, nil)
		if bad != 1 || err == nil || err.Error() != tt.want || !errors.Is(err, errBadRef) {
			t.Errorf("resolveAll with %+v = job %d, %v; want job 1, %q", tt.ref, bad, err, tt.want)
		}
	}
}

// TestResolveAllRefusesJobsPastInt32 checks that a call of more jobs than a
// pageItem's job can count fails at the first job past it, with meanwhile
// run and no reference read.
func TestResolveAllRefusesJobsPastInt32(t *testing.T) {
	f := newFixture(t, 1, newMapStore())
	cr := crew.New(1, crew.DefaultPark, nil)
	defer cr.Close()
	ran := false
	pagesOf := func(int) []PageRef {
		t.Fatal("a reference was read")
		return nil
	}
	items, bad, err := resolveAll(cr, nil, f.pools, math.MaxInt32+1, pagesOf, func() { ran = true })
	if err == nil || bad != math.MaxInt32 || len(items) != 0 || !ran {
		t.Errorf("resolveAll(MaxInt32+1 jobs) = %d items, job %d, %v, meanwhile ran %v; want job %d, an error, meanwhile run", len(items), bad, err, ran, math.MaxInt32)
	}
}

func TestResolveParts(t *testing.T) {
	tests := []struct{ total, threads, want int }{
		{0, 16, 1},
		{minResolvePages - 1, 16, 1},
		{2 * minResolvePages, 16, 2},
		{262144, 16, 64}, // 1 GiB of 4 KiB pages: four parts per thread
		{262144, 2, 8},
		{1 << 30, 1, resolvePartsPerThread},
	}
	for _, tt := range tests {
		if got := resolveParts(tt.total, tt.threads); got != tt.want {
			t.Errorf("resolveParts(%d, %d) = %d, want %d", tt.total, tt.threads, got, tt.want)
		}
	}
}

// BenchmarkResolveRange resolves the references of a GiB of 4 KiB pages
// (262,144, in 8,192 jobs of 32) on one goroutine; ns/page is the time
// per reference.
func BenchmarkResolveRange(b *testing.B) {
	dev, err := cuda.Open("host")
	if err != nil {
		b.Fatal(err)
	}
	const pages, per = 262144, 32
	pool, err := NewPagePool(dev, LayerGroup{RegionBytes: []int64{2048, 2048}}, pages)
	if err != nil {
		b.Fatal(err)
	}
	defer ClosePagePools([]*PagePool{pool})
	refs := make([]PageRef, pages)
	for i := range refs {
		refs[i] = PageRef{Key: "bench-key-" + strconv.Itoa(i), Page: i}
	}
	offs := make([]int, pages/per+1)
	for j := range pages / per {
		offs[j+1] = offs[j] + per
	}
	pagesOf := func(j int) []PageRef { return refs[j*per : (j+1)*per] }
	items, pools := make([]pageItem, pages), []*PagePool{pool}
	for b.Loop() {
		if f := resolveRange(items, pools, offs, pagesOf, 0, pages); f.err != nil {
			b.Fatal(f.err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/pages, "ns/page")
}
