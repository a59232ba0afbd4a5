package mem

import "sync"

// putScratch is a Put's lists of objects (the call's new objects, and
// those whose keys it claimed), recycled from call to call: a replay puts
// millions of pages in calls of a few hundred, and these lists were a
// tenth of what its pool allocated.
type putScratch struct {
	pending, fresh []*object
}

var putScratches sync.Pool // *putScratch

// getPutScratch returns lists for a put of n items: pending n long, fresh
// empty with room for n.
func getPutScratch(n int) *putScratch {
	sc, _ := putScratches.Get().(*putScratch)
	if sc == nil {
		sc = new(putScratch)
	}
	if cap(sc.pending) < n {
		sc.pending, sc.fresh = make([]*object, n), make([]*object, 0, n)
	}
	sc.pending, sc.fresh = sc.pending[:n], sc.fresh[:0]
	return sc
}

// putPutScratch recycles sc, dropping the objects it points to.
func putPutScratch(sc *putScratch) {
	clear(sc.pending)
	clear(sc.fresh[:cap(sc.fresh)])
	putScratches.Put(sc)
}
