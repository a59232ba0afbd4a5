package transfer

import (
	"context"
	"runtime"
	"runtime/trace"
	"sync"
	"time"

	"github.com/kvctl/kvctl/stats"
)

// PhaseTimes is the wall time spent in each phase.
type PhaseTimes [stats.NumPhases]time.Duration

// Add adds o's times to t.
func (t *PhaseTimes) Add(o PhaseTimes) {
	for i := range t {
		t[i] += o[i]
	}
}

// Total is the sum over phases.
func (t PhaseTimes) Total() time.Duration {
	var s time.Duration
	for _, d := range t {
		s += d
	}
	return s
}

// Milliseconds maps each phase that took time to its milliseconds.
func (t PhaseTimes) Milliseconds() map[string]float64 {
	m := map[string]float64{}
	for p, d := range t {
		if d > 0 {
			m[stats.Phase(p).String()] = float64(d) / float64(time.Millisecond)
		}
	}
	return m
}

// Totals are the counters of a Stats sink.
type Totals struct {
	// Phases is the wall time per phase of the goroutine running each
	// load or save, summed over calls (and over workers, for an
	// AsyncLoader). Store calls run on other goroutines, overlapping the
	// device copies and the queueing of the other batch's copies: get and
	// put are the time spent waiting for them, and sync the time spent
	// waiting for the device (for a staging buffer to free up, and at the
	// end of the call); see the package doc.
	Phases PhaseTimes
	// CPU is the CPU time per phase of the threads that ran it (Linux
	// only): for get and put, that of every thread running the batch's
	// concurrent store calls, so it may exceed the wall time. Work a pool
	// does on threads of its own is not in it.
	CPU PhaseTimes
	// Helpers is the CPU time the crew's helpers spent in store calls
	// (Linux only), summed over calls: the share of CPU's get or put that
	// ran on threads other than the call's, each helper's run of store
	// calls of a set held to the run's wall time (crew.Task.CPU). Divided
	// by the helpers' number and the wall time, it says how busy they were.
	Helpers time.Duration
	// DeviceCopy is the time some set's unstage or stage copies were
	// under way on the device, from each set's start event to its done
	// event, overlaps counted once: the copy mode's rate is Bytes /
	// DeviceCopy.
	DeviceCopy time.Duration
	// Pages is the number of pages asked for.
	Pages int64
	// Landed is the number of pages copied to the GPU (loads) or stored
	// (saves).
	Landed int64
	// Missing is the number of pages a load did not find (loads).
	Missing int64
	// Existing is the number of pages a save skipped because Exist found
	// them (saves with SkipExisting).
	Existing int64
	// AlreadyExists is the number of puts answered ObjectAlreadyExists.
	AlreadyExists int64
	// Failed is the number of puts that failed otherwise (not retried).
	Failed int64
	// StoreCalls is the number of batched pool calls (Get, Put, Exist).
	StoreCalls int64
	// Bytes is the bytes landed or stored.
	Bytes int64
	// Jobs is the number of jobs finished.
	Jobs int64
	// Wait is the time async jobs spent queued; Transfer the time workers
	// spent on them.
	Wait, Transfer time.Duration
	// MaxQueue is the deepest the async queue was at a Submit.
	MaxQueue int
}

// Stats collects Totals; it is safe for concurrent use. A nil *Stats
// disables statistics (and clock reads).
type Stats struct {
	mu sync.Mutex
	t  Totals
}

// Totals returns a copy of the counters.
func (s *Stats) Totals() Totals {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t
}

// Reset zeroes the counters.
func (s *Stats) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t = Totals{}
}

func (s *Stats) add(fn func(t *Totals)) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&s.t)
}

// phaseClock accumulates wall and thread CPU time per phase between laps;
// when off it reads no clock. While on it keeps the goroutine on its OS
// thread, so that the thread's CPU time is the work's: call stop when done.
type phaseClock struct {
	on      bool
	last    time.Time
	lastCPU time.Duration
	times   PhaseTimes
	cpu     PhaseTimes
	helpers time.Duration // what addCPU charged
}

func newPhaseClock(on bool) phaseClock {
	c := phaseClock{on: on}
	if on {
		runtime.LockOSThread()
		c.last, c.lastCPU = time.Now(), threadCPU()
	}
	return c
}

// lap charges the time since the last lap to p.
func (c *phaseClock) lap(p stats.Phase) {
	if !c.on {
		return
	}
	now, cpu := time.Now(), threadCPU()
	wall := now.Sub(c.last)
	spent, _ := stats.SpanCPU(c.lastCPU, cpu, wall) // held to the wall time
	c.times[p] += wall
	c.cpu[p] += spent
	c.last, c.lastCPU = now, cpu
	if trace.IsEnabled() {
		// An execution trace (--exectrace) shows each phase's end on
		// the goroutine's timeline: the phases of a set between them.
		trace.Log(context.Background(), "transfer phase", p.String())
	}
}

// addCPU charges CPU time the crew's helpers spent to p.
func (c *phaseClock) addCPU(p stats.Phase, d time.Duration) {
	if c.on {
		c.cpu[p] += d
		c.helpers += d
	}
}

// cpuClock is threadCPU when measuring, else nil (a crew's clock).
func cpuClock(measure bool) func() time.Duration {
	if measure {
		return threadCPU
	}
	return nil
}

// threadCPU is the calling OS thread's CPU time (stats.ThreadCPU), 0
// where it is not measured.
func threadCPU() time.Duration {
	cpu, _ := stats.ThreadCPU()
	return cpu
}

// stop releases the OS thread.
func (c *phaseClock) stop() {
	if c.on {
		c.on = false
		runtime.UnlockOSThread()
	}
}
