// Package crew keeps helper goroutines that take the chunks of a task as
// soon as it is posted: the helper pool of package transfer, which runs a
// set's store calls on it.
package crew

import (
	"context"
	"errors"
	"runtime"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/kvctl/kvctl/stats"
)

const (
	// DefaultPark is how long a helper spins without work before it
	// parks until the next task.
	DefaultPark = time.Millisecond
	// spinCheck is how many empty spins a helper makes between two
	// looks at the clock.
	spinCheck = 256
	// yieldEvery is how often a spinning goroutine yields its processor
	// (where there is more than one), so that goroutines without one
	// get it. Helpers that yielded every spinCheck spins kept the
	// scheduler's lock busy: on the H200 virtual machine's 16 cores
	// (helpers locked to their threads) 41% of a 4 KiB direct load's CPU
	// profile was the scheduler, and the goroutine queueing the device's
	// work waited 14 µs to 100 µs for a processor after each of its own
	// yields.
	yieldEvery = 25 * time.Microsecond
	// waitSpin is how long Wait spins for the helpers' last chunks
	// before it yields its processor at all: the waiting goroutine
	// queues the device's work.
	waitSpin = 200 * time.Microsecond
)

// The names of the crew's events in an execution trace (--exectrace),
// which internal/crewtrace reads.
const (
	// ChunkRegion is the region of each chunk a member runs.
	ChunkRegion = "crew chunk"
	// PostLog is the log category of each task posted; its message is
	// the task's chunks.
	PostLog = "crew post"
	// TransferLog is the log category with which the crew's user marks
	// the start of a transfer (kvctl bench: "warm-up" or "timed"), so
	// that a trace's crew work can be told per transfer.
	TransferLog = "crew transfer"
)

// spinner spaces a spinning goroutine's yields: every spinCheck spins
// on one processor, else at most every yieldEvery, the first after
// first.
type spinner struct {
	first time.Duration
	since time.Time // zero until the spinning starts
	last  time.Time // the last yield
	one   bool      // GOMAXPROCS is 1
}

func newSpinner(first time.Duration) spinner {
	return spinner{first: first, one: runtime.GOMAXPROCS(0) == 1}
}

// spin is called every spinCheck spins: it yields when it is time to.
func (s *spinner) spin() {
	now := time.Now()
	if s.since.IsZero() {
		s.since, s.last = now, now.Add(s.first-yieldEvery)
	}
	if s.one || now.Sub(s.last) >= yieldEvery {
		runtime.Gosched()
		s.last = time.Now()
	}
}

// idle is how long the spinning has lasted (0 before the first spin).
func (s *spinner) idle() time.Duration {
	if s.since.IsZero() {
		return 0
	}
	return time.Since(s.since)
}

// reset marks the end of a spell of spinning.
func (s *spinner) reset() { s.since = time.Time{} }

// Crew is a set of helpers: goroutines that take the chunks of each
// task (a transfer set's store calls) as soon as it is posted.
// Starting goroutines per task instead leaves them waiting for idle
// threads to wake, which took a median of 134 µs per goroutine on the
// H200 virtual machine, longer than a 4 KiB set's store calls.
//
// Helper i works on tasks of more than i+1 chunks (the waiting goroutine
// takes chunks too). Between such tasks it spins, yielding its processor
// every yieldEvery, and parks after park without one; a helper a task does not need parks
// at once, so that small tasks keep one or two helpers busy, not all of
// them. Post wakes the parked helpers the task needs. Post waits for
// nothing, and tasks queue: the helpers take a task's chunks once every
// chunk of the tasks posted before it is taken, so that the next set's
// store calls are under way while the caller finishes the last set.
type Crew struct {
	park time.Duration
	// cpu reads the calling thread's CPU time; nil: not measured.
	cpu func() time.Duration
	// task is the oldest task whose chunks may not all be taken yet (the
	// queue's head, moved on by current); last the newest posted.
	task    atomic.Pointer[Task]
	last    atomic.Pointer[Task]
	helpers []*helper
	stop    chan struct{}
	wg      sync.WaitGroup
}

// helper is one helper's parking place.
type helper struct {
	parked atomic.Bool
	wake   chan struct{}
}

// Task is n chunks of work, fn(0) .. fn(n-1), taken in order by the
// crew's helpers and the goroutine that waits for it.
//
// What every chunk reads (n, fn, errs) and what it writes (next, as it is
// taken; left and cpu, as it finishes) lie on cache lines of their own, so
// that one member's take does not take from the others the line of fn
// they are about to read.
type Task struct {
	// after is the task posted next, nil until there is one.
	after atomic.Pointer[Task]
	n     int
	fn    func(j int) error
	errs  []error
	_     cpu.CacheLinePad
	next  atomic.Int64 // the next chunk to take
	_     cpu.CacheLinePad
	left  atomic.Int64 // chunks not finished
	cpu   atomic.Int64 // thread CPU time of the helpers' chunks, when measured
}

// New starts helpers goroutines (none when helpers < 1) that park after
// park without work (DefaultPark); with a cpu clock (the calling thread's
// CPU time) each helper keeps its thread while it runs chunks and their
// CPU time is summed per task (Task.CPU).
func New(helpers int, park time.Duration, cpu func() time.Duration) *Crew {
	c := &Crew{park: park, cpu: cpu, stop: make(chan struct{})}
	for i := range max(0, helpers) {
		h := &helper{wake: make(chan struct{}, 1)}
		c.helpers = append(c.helpers, h)
		c.wg.Go(func() { c.help(i, h) })
	}
	return c
}

// Close stops the helpers and waits for them; the last task must have
// been waited for.
func (c *Crew) Close() {
	close(c.stop)
	c.wg.Wait()
}

// Post queues a task of n chunks behind those posted before, wakes the
// parked helpers it needs and returns at once; wait for it with
// Task.Wait, which also runs chunks. One goroutine posts: Post is not
// safe for concurrent use.
func (c *Crew) Post(n int, fn func(j int) error) *Task {
	t := &Task{n: n, fn: fn, errs: make([]error, n)}
	t.left.Store(int64(n))
	if trace.IsEnabled() {
		// seen in --exectrace; logged before the task is queued, so that
		// every one of its chunks begins after its post
		trace.Logf(context.Background(), PostLog, "%d", n)
	}
	if head := c.current(); head == nil || head.taken() {
		c.task.Store(t) // nothing left to take: t heads the queue
	} else {
		c.last.Load().after.Store(t)
	}
	c.last.Store(t)
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

// current is the oldest task with chunks left to take, or the newest
// posted when every chunk is taken (nil before the first post); it moves
// the queue's head past the tasks whose chunks are all taken.
func (c *Crew) current() *Task {
	t := c.task.Load()
	for t != nil && t.taken() {
		after := t.after.Load()
		if after == nil {
			return t
		}
		c.task.CompareAndSwap(t, after)
		t = c.task.Load()
	}
	return t
}

// wanted returns the first queued task with chunks left for helper i.
func (c *Crew) wanted(i int) (*Task, bool) {
	for t := c.current(); t != nil; t = t.after.Load() {
		if i < t.n-1 && !t.taken() {
			return t, true
		}
	}
	return nil, false
}

// help is helper i: it takes chunks of the tasks that need it until the
// crew stops.
//
// A measured helper keeps its OS thread only while it runs chunks
// (runChunks), so that its thread's CPU clock counts them, not between
// them: a locked goroutine's yields and parks hand its processor over to
// its thread and back. In an execution trace of six staged saves of 4 KiB
// pages on a 16-core H100 virtual machine, each of the helpers' 12,633
// yields kept a helper locked for life off its core for 59.8 µs on
// average, and half the helpers were runnable, not running, when a set was
// posted; unlocked between chunks, a yield took 2.5 µs. That made staged
// transfers of 4 KiB pages faster (runs 48 to 51 of 2026-12-05, medians
// of 8 rounds: saves 44.6 GB/s against 38.3, loads 43.2 against 39.9)
// and direct ones slower unless the crew leaves a quarter of the cores
// free (package transfer's DefaultParallel). The helpers of kvctl serve,
// which measures no CPU time, never lock their threads.
func (c *Crew) help(i int, h *helper) {
	sp := newSpinner(0)
	for spins := 1; ; spins++ {
		if t, ok := c.wanted(i); ok && t.runChunks(c.cpu) {
			spins = 0
			sp.reset()
			continue
		}
		if spins%spinCheck != 0 {
			continue
		}
		if t := c.last.Load(); (t == nil || i < t.n-1) && sp.idle() < c.park {
			sp.spin()
			continue
		}
		if !c.sleep(i, h) {
			return
		}
		sp.reset()
	}
}

// sleep parks helper i until a task needs it (true) or the crew stops
// (false).
func (c *Crew) sleep(i int, h *helper) bool {
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

// taken says whether every chunk of t was taken.
func (t *Task) taken() bool { return t.next.Load() >= int64(t.n) }

// take claims the next chunk not taken yet; false when none is left.
func (t *Task) take() (int, bool) {
	if t.taken() {
		return 0, false // no write: idle helpers spin on this line
	}
	j := t.next.Add(1) - 1
	return int(j), j < int64(t.n)
}

// run runs chunk j.
func (t *Task) run(j int) {
	region := trace.StartRegion(context.Background(), ChunkRegion) // seen in --exectrace
	t.errs[j] = t.fn(j)
	region.End()
}

// runChunks runs chunks of t, one after the other, until none is left to
// take; false when there was none. With a clock it keeps its thread for
// the run and reads the thread's CPU time once before the first chunk and
// once after the last (at most the run's wall time: stats.SpanCPU), not
// around each chunk: a read is a system
// call (1.3 µs on the 2-core development VM), and a staged set's store
// calls are chunks of 30 µs to 70 µs. The time is added to t.cpu before
// the last chunk counts as finished, so that Wait sees it: the next chunk
// is claimed before the one run counts as finished.
func (t *Task) runChunks(clock func() time.Duration) bool {
	j, ok := t.take()
	if !ok {
		return false
	}
	var start time.Duration
	var began time.Time
	if clock != nil {
		runtime.LockOSThread() // the clock is the thread's
		defer runtime.UnlockOSThread()
		start, began = clock(), time.Now()
	}
	for {
		t.run(j)
		next, more := t.take()
		if !more {
			break
		}
		t.left.Add(-1)
		j = next
	}
	if clock != nil {
		spent, _ := stats.SpanCPU(start, clock(), time.Since(began)) // held to the wall time
		t.cpu.Add(int64(spent))
	}
	t.left.Add(-1)
	return true
}

// Wait runs chunks until none is left to take, then spins until the
// helpers finished theirs (yielding its processor first after waitSpin,
// or at once on one processor), and returns the number of chunks and
// their errors joined.
func (t *Task) Wait() (int, error) {
	t.runChunks(nil)
	sp := newSpinner(waitSpin)
	for spins := 1; t.left.Load() > 0; spins++ {
		if spins%spinCheck == 0 {
			sp.spin()
		}
	}
	return t.n, errors.Join(t.errs...)
}

// CPU is the thread CPU time of the chunks the helpers ran (not those of
// the waiting goroutine), when the crew measures it; read it after Wait.
func (t *Task) CPU() time.Duration { return time.Duration(t.cpu.Load()) }
