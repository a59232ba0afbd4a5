package transfer

import (
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// directScratch is one direct set's arguments and answers of its store
// calls, so that the calls of the next set can run while this set's copies
// are described and queued.
type directScratch struct {
	keys  []string
	items []pool.PutItem
	views [][]byte // views (loads) or places (saves)
	codes []pool.Code
	ptrs  []cuda.DevPtr
	// copies are the set's copies, described by the goroutines of its
	// store calls: item i's are copies[ends[i-1]:ends[i]].
	copies []cuda.Copy
	ends   []int
	// short flags the set's store calls (batches) with a page not viewed
	// whole (loads) or not reserved (saves).
	short []bool
	// gathers are a save set's copies of the pages reserved.
	gathers []cuda.Copy
}

// newDirectScratch is the scratch of a set of up to n pages of up to
// regions regions each.
func newDirectScratch(n, regions int) *directScratch {
	return &directScratch{
		keys: make([]string, n), items: make([]pool.PutItem, n), views: make([][]byte, n),
		codes: make([]pool.Code, n), ptrs: make([]cuda.DevPtr, n),
		copies: make([]cuda.Copy, n*regions), ends: make([]int, n), short: make([]bool, n),
	}
}

// place records where each of items' copies go in d.copies.
func (d *directScratch) place(items []pageItem) {
	end := 0
	for i, it := range items {
		end += it.regions()
		d.ends[i] = end
	}
}

// describe writes the copies of items[lo:hi] whose places (d.ptrs) are
// known and for which ok says so, for kind.
func (d *directScratch) describe(items []pageItem, lo, hi int, kind cuda.CopyKind, ok func(i int) bool) {
	for i := lo; i < hi; i++ {
		if d.ptrs[i] != 0 && ok(i) {
			describePage(d.copies[d.ends[i]-items[i].regions():d.ends[i]], items[i], d.ptrs[i], kind)
		}
	}
}

// kept compacts the set's copies to those of the items keep accepts.
func (d *directScratch) kept(k int, keep func(i int) bool) []cuda.Copy {
	return compactCopies(d.copies, d.ends[:k], keep)
}

// prefetch is a direct set whose store calls (ViewBatch for loads,
// Reserve for saves) run on the call's crew.
type prefetch struct {
	set   *slotSet
	task  *crewTask
	calls int
	err   error
}

// wait waits for the set's store calls, helping with them; later calls do
// nothing.
func (f *prefetch) wait() {
	if f != nil && f.task != nil {
		f.calls, f.err = f.task.wait()
		f.task = nil
	}
}

// startDirect acquires the next set for batch (waiting for its last
// copies) and posts its store calls with post(set, k) to the crew; nil
// when the batch is empty.
func startDirect(p *pipeline, batch []pageItem, post func(s *slotSet, k int) *crewTask) (*prefetch, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	s, err := p.acquire()
	if err != nil {
		return nil, err
	}
	s.items = append(s.items[:0], batch...)
	return &prefetch{set: s, task: post(s, len(batch))}, nil
}

// directStep is what a direct load or save does with its sets: start the
// next set's store calls on the crew (nil when no page is left), finish a
// set's calls once they returned, and queue its copies.
type directStep struct {
	start  func(cr *crew) (*prefetch, error)
	finish func(f *prefetch) error
	submit func(s *slotSet) error
}

// runSets runs set after set with the lane's crew: once set k's store
// calls returned, the calls of set k+1 start (on the crew) before set k's
// copies are queued, so that they overlap.
func runSets(cr *crew, step directStep) error {
	cur, err := step.start(cr)
	for cur != nil && err == nil {
		err = step.finish(cur)
		var next *prefetch
		if err == nil {
			next, err = step.start(cr)
		}
		if err == nil {
			err = step.submit(cur.set)
		}
		if err != nil {
			next.wait()
			return err
		}
		cur = next
	}
	return err
}
