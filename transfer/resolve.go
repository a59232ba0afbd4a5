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
// (so that a lane's calls reuse theirs), in parts run by cr's helpers
// when there are many. On a bad reference it returns the index of the
// first job (in job order) with one, and that error.
func resolveAll(cr *crew.Crew, room []pageItem, pools []*PagePool, n int, pagesOf func(j int) []PageRef) ([]pageItem, int, error) {
	offs := make([]int, n+1)
	for j := range n {
		offs[j+1] = offs[j] + len(pagesOf(j))
	}
	items := room[:0]
	if cap(room) < offs[n] {
		items = make([]pageItem, offs[n])
	}
	items = items[:offs[n]]
	errs := make([]error, n)
	resolve := func(lo, hi int) {
		for j := lo; j < hi; j++ {
			dst := items[offs[j]:offs[j+1]]
			for i, r := range pagesOf(j) {
				var err error
				if dst[i], err = resolvePage(pools, j, i, r); err != nil {
					errs[j] = err
					break
				}
			}
		}
	}
	parts := max(1, min(runtime.GOMAXPROCS(0), offs[n]/minResolvePages))
	ends := make([]int, parts+1) // part w resolves jobs ends[w] to ends[w+1]
	for w := 1; w < parts; w++ {
		ends[w] = max(ends[w-1], min(n, sort.SearchInts(offs, offs[n]*w/parts)))
	}
	ends[parts] = n
	cr.Post(parts, func(w int) error { resolve(ends[w], ends[w+1]); return nil }).Wait()
	for j, err := range errs {
		if err != nil {
			return items, j, refError{err}
		}
	}
	return items, -1, nil
}
