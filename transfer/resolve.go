package transfer

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"

	"github.com/kvctl/kvctl/internal/crew"
)

// minResolvePages is the fewest pages of one part when a call's pages are
// resolved in parallel, and resolvePartsPerThread how many parts each
// thread may get at most. Parts smaller than one thread's share let the
// threads that are running take the parts of helpers that are still
// waking: on the H200 virtual machine the crew's parked helpers woke 60 to
// 420 µs after the post, and with one part each of 16,384 pages (350-500
// µs of work apiece) the last parts ended 0.8-1.0 ms after it for a load of
// 1 GiB of 4 KiB pages; in parts of 4,096 pages the phase took 0.69-1.02
// ms (median 0.84) against 0.87-1.38 (1.02), 0.2 ms less at 16 KiB too
// (docs/benchmarks.md, "Where a direct load of 4 KiB pages loses its
// time").
const (
	minResolvePages       = 4 << 10
	resolvePartsPerThread = 4
)

// errBadRef is matched (errors.Is) by the errors of page references that
// name no GPU page.
var errBadRef = errors.New("bad page reference")

// refError is the error of a bad page reference, with its text.
type refError struct{ error }

func (e refError) Unwrap() error        { return e.error }
func (e refError) Is(target error) bool { return target == errBadRef }

// resolveAll resolves the page references of n jobs (pagesOf(j) are job
// j's) into one slice, in job order, in room's memory when it holds them
// (so that a lane's calls reuse theirs), in parts of about equal pages
// run by cr's helpers when there are many (a part may cut a job, so that
// one large job is resolved in parallel too). meanwhile (nil: nothing)
// runs on the calling goroutine once the parts are posted, before it
// helps with them: a call's own allocations then overlap the helpers'
// waking. On a bad reference it returns the index of the first job (in
// job order) with one, and that error.
func resolveAll(cr *crew.Crew, room []pageItem, pools []*PagePool, n int, pagesOf func(j int) []PageRef, meanwhile func()) ([]pageItem, int, error) {
	if n > math.MaxInt32 { // a pageItem's job is an int32: the first job past it is the bad one
		if meanwhile != nil {
			meanwhile()
		}
		return room[:0], math.MaxInt32, fmt.Errorf("job %d: a call holds at most %d jobs", math.MaxInt32, math.MaxInt32)
	}
	offs := make([]int, n+1)
	for j := range n {
		offs[j+1] = offs[j] + len(pagesOf(j))
	}
	total := offs[n]
	items := room[:0]
	if cap(room) < total {
		items = make([]pageItem, total)
	}
	items = items[:total]
	parts := resolveParts(total, runtime.GOMAXPROCS(0))
	bad := make([]resolveFailure, parts)
	task := cr.Post(parts, func(w int) error {
		bad[w] = resolveRange(items, pools, offs, pagesOf, total*w/parts, total*(w+1)/parts)
		return nil
	})
	if meanwhile != nil {
		meanwhile()
	}
	task.Wait()
	for _, f := range bad { // parts in page order: the first failure is the first job's
		if f.err != nil {
			return items, f.job, refError{f.err}
		}
	}
	return items, -1, nil
}

// resolveParts is how many parts total pages are resolved in with threads
// threads: parts of at least minResolvePages, at most resolvePartsPerThread
// per thread, at least one.
func resolveParts(total, threads int) int {
	return max(1, min(resolvePartsPerThread*threads, total/minResolvePages))
}

// resolveFailure is the first bad reference of a part, if any.
type resolveFailure struct {
	job int
	err error
}

// resolveRange resolves the pages lo to hi (counted over all jobs, job j's
// from offs[j]) into items, up to the first bad reference. It takes 2.1
// ns a page on the 2-core development VM (BenchmarkResolveRange: 262,144
// references); at f6cbbff, with items of 48 bytes, resolvePage not
// inlined and each reference found by its index in its job, 12.5-13.3. In
// an execution trace of a direct load of 1 GiB of 4 KiB pages on an H100
// (2026-12-05, run 59) each part of 4,096 pages took 80-120 µs.
func resolveRange(items []pageItem, pools []*PagePool, offs []int, pagesOf func(j int) []PageRef, lo, hi int) resolveFailure {
	j := sort.SearchInts(offs, lo+1) - 1 // the job holding page lo
	for p := lo; p < hi; j++ {
		first := p - offs[j] // job j's first page in the range
		refs := pagesOf(j)[first : min(hi, offs[j+1])-offs[j]]
		dst := items[p : p+len(refs)]
		for k, r := range refs {
			it, ok := resolvePage(pools, j, r)
			if !ok {
				return resolveFailure{job: j, err: badRef(pools, first+k, r)}
			}
			dst[k] = it
		}
		p += len(refs)
	}
	return resolveFailure{}
}
