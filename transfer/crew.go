package transfer

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// crewPark is how long a crew helper spins without work before it
	// parks until the next task.
	crewPark = time.Millisecond
	// crewSpinCheck is how many empty spins a helper makes between two
	// looks at the clock (and yields of its processor).
	crewSpinCheck = 256
)

// crew is a lane's helpers: goroutines that take the chunks of each
// task (a batch's or a direct set's store calls) as soon as it is posted.
// Starting goroutines per task instead leaves them waiting for idle
// threads to wake, which took a median of 134 µs per goroutine on the
// H200 virtual machine, longer than a 4 KiB set's store calls.
//
// Helper i works on tasks of more than i+1 chunks (the waiting goroutine
// takes chunks too). Between such tasks it spins, yielding its processor,
// and parks after park without one; a helper a task does not need parks
// at once, so that small tasks keep one or two helpers busy, not all of
// them. Post wakes the parked helpers the task needs. Only one task runs
// at a time: post waits for nothing, but a task must be waited for before
// the next is posted.
type crew struct {
	park    time.Duration
	measure bool // sum the thread CPU time of the chunks helpers run
	task    atomic.Pointer[crewTask]
	helpers []*crewHelper
	stop    chan struct{}
	wg      sync.WaitGroup
}

// crewHelper is one helper's parking place.
type crewHelper struct {
	parked atomic.Bool
	wake   chan struct{}
}

// crewTask is n chunks of work, fn(0) .. fn(n-1), taken in order by the
// crew's helpers and the goroutine that waits for it.
type crewTask struct {
	n    int
	fn   func(j int) error
	next atomic.Int64 // the next chunk to take
	left atomic.Int64 // chunks not finished
	cpu  atomic.Int64 // thread CPU time of the helpers' chunks, when measured
	errs []error
}

// newCrew starts helpers goroutines (none when helpers < 1) that park
// after park without work (crewPark); with measure each helper keeps its
// thread and the CPU time of its chunks is summed per task.
func newCrew(helpers int, park time.Duration, measure bool) *crew {
	c := &crew{park: park, measure: measure, stop: make(chan struct{})}
	for i := range max(0, helpers) {
		h := &crewHelper{wake: make(chan struct{}, 1)}
		c.helpers = append(c.helpers, h)
		c.wg.Go(func() { c.help(i, h) })
	}
	return c
}

// close stops the helpers and waits for them; the last task must have
// been waited for.
func (c *crew) close() {
	close(c.stop)
	c.wg.Wait()
}

// post starts a task of n chunks, wakes the parked helpers it needs and
// returns at once; wait for it with crewTask.wait, which also runs chunks.
func (c *crew) post(n int, fn func(j int) error) *crewTask {
	t := &crewTask{n: n, fn: fn, errs: make([]error, n)}
	t.left.Store(int64(n))
	c.task.Store(t)
	for _, h := range c.helpers[:min(max(0, n-1), len(c.helpers))] {
		if h.parked.Load() {
			select {
			case h.wake <- struct{}{}:
			default:
			}
		}
	}
	return t
}

// wanted says whether helper i has chunks of the current task to take.
func (c *crew) wanted(i int) (*crewTask, bool) {
	t := c.task.Load()
	return t, t != nil && i < t.n-1 && t.next.Load() < int64(t.n)
}

// help is helper i: it takes chunks of the tasks that need it until the
// crew stops.
func (c *crew) help(i int, h *crewHelper) {
	if c.measure {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	idleSince := time.Now()
	for spins := 1; ; spins++ {
		if t, ok := c.wanted(i); ok && t.runNext(c.measure) {
			spins, idleSince = 0, time.Time{}
			continue
		}
		if spins%crewSpinCheck != 0 {
			continue
		}
		if idleSince.IsZero() {
			idleSince = time.Now()
		}
		if t := c.task.Load(); (t == nil || i < t.n-1) && time.Since(idleSince) < c.park {
			runtime.Gosched()
			continue
		}
		if !c.sleep(i, h) {
			return
		}
		idleSince = time.Now()
	}
}

// sleep parks helper i until a task needs it (true) or the crew stops
// (false).
func (c *crew) sleep(i int, h *crewHelper) bool {
	h.parked.Store(true)
	defer h.parked.Store(false)
	if _, ok := c.wanted(i); ok {
		return true // posted after post looked at h.parked
	}
	select {
	case <-h.wake:
		return true
	case <-c.stop:
		return false
	}
}

// runNext runs the next chunk not taken yet, adding its thread CPU time
// to t.cpu with measure; false when none is left.
func (t *crewTask) runNext(measure bool) bool {
	if t.next.Load() >= int64(t.n) {
		return false // no write: idle helpers spin on this line
	}
	j := t.next.Add(1) - 1
	if j >= int64(t.n) {
		return false
	}
	var start time.Duration
	if measure {
		start = threadCPU()
	}
	t.errs[j] = t.fn(int(j))
	if measure {
		t.cpu.Add(int64(threadCPU() - start))
	}
	t.left.Add(-1)
	return true
}

// runAll runs chunks on the calling goroutine until none is left to take.
func (t *crewTask) runAll() {
	for t.runNext(false) {
	}
}

// wait runs chunks until none is left to take, then spins until the
// helpers finished theirs, and returns the number of chunks and their
// errors joined.
func (t *crewTask) wait() (int, error) {
	t.runAll()
	for spins := 1; t.left.Load() > 0; spins++ {
		if spins%crewSpinCheck == 0 {
			runtime.Gosched()
		}
	}
	return t.n, errors.Join(t.errs...)
}
