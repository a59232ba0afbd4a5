package transfer

import (
	"runtime"
	"sort"
	"sync"
)

// minResolvePages is the fewest pages one goroutine resolves when a
// call's pages are resolved in parallel.
const minResolvePages = 16 << 10

// resolveAll resolves the page references of n jobs (pagesOf(j) are job
// j's) into one slice, in job order, on several goroutines when there are
// many. On a bad reference it returns the index of the first job (in job
// order) with one, and that error.
func resolveAll(pools []*PagePool, n int, pagesOf func(j int) []PageRef) ([]pageItem, int, error) {
	offs := make([]int, n+1)
	for j := range n {
		offs[j+1] = offs[j] + len(pagesOf(j))
	}
	items := make([]pageItem, offs[n])
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
	workers := max(1, min(runtime.GOMAXPROCS(0), offs[n]/minResolvePages))
	var wg sync.WaitGroup
	lo := 0
	for w := range workers {
		hi := max(lo, min(n, sort.SearchInts(offs, offs[n]*(w+1)/workers)))
		if w == workers-1 {
			hi = n
		}
		from := lo
		wg.Go(func() { resolve(from, hi) })
		lo = hi
	}
	wg.Wait()
	for j, err := range errs {
		if err != nil {
			return items, j, err
		}
	}
	return items, -1, nil
}
