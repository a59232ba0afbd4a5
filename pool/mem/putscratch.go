package mem

// putScratch is a Put's lists of objects (the call's new objects, and
// those whose keys it claimed), recycled from call to call: a replay puts
// millions of pages in calls of a few hundred, and these lists were a
// tenth of what its pool allocated.
type putScratch struct {
	pending, fresh []*object
}

var putScratches = newRecycler[putScratch]()

// getPutScratch returns lists for a put of n items: pending n long, fresh
// empty with room for n.
func getPutScratch(n int) *putScratch {
	sc := putScratches.get()
	if cap(sc.pending) < n {
		sc.pending, sc.fresh = make([]*object, n), make([]*object, 0, n)
	}
	sc.pending, sc.fresh = sc.pending[:n], sc.fresh[:0]
	return sc
}

// putPutScratch recycles sc, dropping the objects it points to; lists
// for more than maxPooledHold items are left to the collector.
func putPutScratch(sc *putScratch) {
	if cap(sc.pending) > maxPooledHold {
		return
	}
	clear(sc.pending)
	clear(sc.fresh[:cap(sc.fresh)])
	putScratches.put(sc)
}
