package stats

import (
	"sync/atomic"
	"time"
)

// LoadRecorder records the transfer statistics of one direction for
// workers that update it concurrently. It keeps a running total (for
// metrics) and a window since the last TakeWindow (for log lines). A nil
// *LoadRecorder records nothing and reads no clock: that is "stats off".
type LoadRecorder struct {
	w windowed[Load]
	// cpuEvery: the timers read the CPU clock for one operation in
	// cpuEvery after the first cpuExactFirst (SampleCPU); timers counts
	// the operations started.
	cpuEvery int
	timers   atomic.Uint64
}

// cpuExactFirst is how many operations a sampling recorder times with CPU
// before it samples: a short run is measured in full.
const cpuExactFirst = 256

// SampleCPU makes the recorder's timers read the thread CPU clock (two
// system calls a phase) for one operation in every after the first 256,
// and no more for the others, whose phases count no CPU run: a phase's
// CPU time stays the total over its CPU count of runs, now a sample of
// them. Call it before the recorder is used; every <= 1 measures all.
func (r *LoadRecorder) SampleCPU(every int) { r.cpuEvery = every }

// measuresCPU reports whether the operation starting now reads the CPU
// clock.
func (r *LoadRecorder) measuresCPU() bool {
	if r.cpuEvery <= 1 {
		return true
	}
	n := r.timers.Add(1)
	return n <= cpuExactFirst || n%uint64(r.cpuEvery) == 0
}

// NewLoadRecorder returns a recorder for direction op.
func NewLoadRecorder(op Op) *LoadRecorder {
	r := &LoadRecorder{}
	r.w.total, r.w.window = Load{Op: op}, Load{Op: op}
	return r
}

// SetAsync marks the loads asynchronous, served by workers background
// workers, so that Total and TakeWindow carry AsyncStats.
func (r *LoadRecorder) SetAsync(workers int) {
	r.update(func(l *Load) { l.async().Workers = int64(workers) })
}

// AddCall records one store call: see Load.AddCall.
func (r *LoadRecorder) AddCall(pages int, bytes int64, failedPages int) {
	r.update(func(l *Load) { l.AddCall(pages, bytes, failedPages) })
}

// ObservePhase records one run of a phase: see Load.ObservePhase.
func (r *LoadRecorder) ObservePhase(p Phase, wall, cpu time.Duration, cpuOK bool) {
	r.update(func(l *Load) { l.ObservePhase(p, wall, cpu, cpuOK) })
}

// ObserveAsync records one completed asynchronous load: the time it waited
// for a worker and the time its transfer took.
func (r *LoadRecorder) ObserveAsync(wait, transfer time.Duration) {
	r.update(func(l *Load) { l.ObserveAsync(wait, transfer) })
}

// SetQueue sets the live gauges of asynchronous loads: requests queued and
// requests being transferred.
func (r *LoadRecorder) SetQueue(queued, active int) {
	r.update(func(l *Load) {
		a := l.async()
		a.Queue, a.Active = int64(queued), int64(active)
	})
}

// update applies fn to the total and to the window (windowed.update); on
// a nil recorder it does nothing.
func (r *LoadRecorder) update(fn func(*Load)) {
	if r != nil {
		r.w.update(fn)
	}
}

// Total returns a copy of everything recorded so far.
func (r *LoadRecorder) Total() Load {
	if r == nil {
		return Load{}
	}
	return r.w.read(func(l *Load) Load { return l.Clone() })
}

// TakeWindow returns what was recorded since the previous TakeWindow and
// starts a new window. The async gauges carry over.
func (r *LoadRecorder) TakeWindow() Load {
	if r == nil {
		return Load{}
	}
	return r.w.take(func(w *Load) Load {
		next := Load{Op: w.Op}
		if a := w.Async; a != nil {
			next.Async = &AsyncStats{Workers: a.Workers, Queue: a.Queue, Active: a.Active}
		}
		return next
	})
}

// Start begins timing phase p and returns the timer. On a nil recorder it
// reads no clock and the timer does nothing.
func (r *LoadRecorder) Start(p Phase) PhaseTimer {
	if r == nil {
		return PhaseTimer{}
	}
	t := PhaseTimer{rec: r, phase: p, measureCPU: r.measuresCPU()}
	t.wall = time.Now()
	t.cpu, t.tid, t.cpuOK = t.readCPU()
	return t
}

// PhaseTimer times consecutive phases of one operation on one goroutine.
// CPU time is the OS thread's (ThreadCPU); a phase during which the
// goroutine moved to another thread, or whose thread clock ran ahead of its
// wall time (SpanCPU), gets no CPU sample.
// Lock the goroutine to its thread (runtime.LockOSThread) for exact CPU
// accounting. Elsewhere than Linux only wall time is measured.
type PhaseTimer struct {
	rec   *LoadRecorder
	phase Phase
	wall  time.Time
	cpu   time.Duration
	tid   int
	cpuOK bool
	// measureCPU: this operation reads the CPU clock (LoadRecorder.SampleCPU).
	measureCPU bool
}

// readCPU is threadCPU when the timer measures CPU, else not ok.
func (t *PhaseTimer) readCPU() (cpu time.Duration, tid int, ok bool) {
	if !t.measureCPU {
		return 0, 0, false
	}
	return threadCPU()
}

// Next ends the current phase and starts phase p, reading the clocks once.
func (t *PhaseTimer) Next(p Phase) {
	if t.rec == nil {
		return
	}
	now := time.Now()
	cpu, tid, ok := t.readCPU()
	t.record(now, cpu, tid, ok)
	t.phase, t.wall, t.cpu, t.tid, t.cpuOK = p, now, cpu, tid, ok
}

// Stop ends the current phase; the timer does nothing afterwards.
func (t *PhaseTimer) Stop() {
	if t.rec == nil {
		return
	}
	now := time.Now()
	cpu, tid, ok := t.readCPU()
	t.record(now, cpu, tid, ok)
	t.rec = nil
}

func (t *PhaseTimer) record(now time.Time, cpu time.Duration, tid int, ok bool) {
	wall := now.Sub(t.wall)
	spent, plausible := SpanCPU(t.cpu, cpu, wall)
	t.rec.ObservePhase(t.phase, wall, spent, ok && t.cpuOK && tid == t.tid && plausible)
}

// HolesRecorder records prefix-hole statistics for callers that update
// and read them concurrently, with a running total (for metrics) and a
// window since the last TakeWindow (for log lines). A nil *HolesRecorder
// records nothing.
type HolesRecorder struct {
	w windowed[Holes]
}

// NewHolesRecorder returns an empty recorder.
func NewHolesRecorder() *HolesRecorder { return &HolesRecorder{} }

// Add counts one request and its lookup (Holes.Add).
func (r *HolesRecorder) Add(h RequestHoles) {
	r.update(func(x *Holes) { x.Add(h) })
}

// AddRequest counts one request without a lookup (Holes.AddRequest).
func (r *HolesRecorder) AddRequest(promptTokens, blocks int64) {
	r.update(func(x *Holes) { x.AddRequest(promptTokens, blocks) })
}

// AddLookup counts one lookup without a request (Holes.AddLookup).
func (r *HolesRecorder) AddLookup(h RequestHoles) {
	r.update(func(x *Holes) { x.AddLookup(h) })
}

// update is LoadRecorder.update's for holes.
func (r *HolesRecorder) update(fn func(*Holes)) {
	if r != nil {
		r.w.update(fn)
	}
}

// Total returns everything recorded so far.
func (r *HolesRecorder) Total() Holes {
	if r == nil {
		return Holes{}
	}
	return r.w.read(func(h *Holes) Holes { return *h })
}

// TakeWindow returns what was recorded since the previous TakeWindow and
// starts a new window.
func (r *HolesRecorder) TakeWindow() Holes {
	if r == nil {
		return Holes{}
	}
	return r.w.take(func(*Holes) Holes { return Holes{} })
}
