package transfer

import (
	"errors"
	"runtime"
	"sort"

	"github.com/kvctl/kvctl/internal/crew"
)

// minResolvePages is the fewest pages one goroutine resolves when a
// call's pages are resolved in parallel.
const minResolvePages = 16 << 10

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
// one large job is resolved in parallel too). On a bad reference it
// returns the index of the first job (in job order) with one, and that
// error.
func resolveAll(cr *crew.Crew, room []pageItem, pools []*PagePool, n int, pagesOf func(j int) []PageRef) ([]pageItem, int, error) {
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
	parts := max(1, min(runtime.GOMAXPROCS(0), total/minResolvePages))
	bad := make([]resolveFailure, parts)
	cr.Post(parts, func(w int) error {
		bad[w] = resolveRange(items, pools, offs, pagesOf, total*w/parts, total*(w+1)/parts)
		return nil
	}).Wait()
	for _, f := range bad { // parts in page order: the first failure is the first job's
		if f.err != nil {
			return items, f.job, refError{f.err}
		}
	}
	return items, -1, nil
}

// resolveFailure is the first bad reference of a part, if any.
type resolveFailure struct {
	job int
	err error
}

// resolveRange resolves the pages lo to hi (counted over all jobs, job j's
// from offs[j]) into items, up to the first bad reference.
func resolveRange(items []pageItem, pools []*PagePool, offs []int, pagesOf func(j int) []PageRef, lo, hi int) resolveFailure {
	j := sort.SearchInts(offs, lo+1) - 1 // the job holding page lo
	for p := lo; p < hi; j++ {
		refs := pagesOf(j)
		for ; p < min(hi, offs[j+1]); p++ {
			i := p - offs[j]
			var err error
			if items[p], err = resolvePage(pools, j, i, refs[i]); err != nil {
				return resolveFailure{job: j, err: err}
			}
		}
	}
	return resolveFailure{}
}
