package stats

import (
	"encoding/json"
	"time"
)

// DurationBuckets are the upper bounds, in seconds, of the duration
// histograms kept per phase and for asynchronous waits and transfers
// (10 µs to about 10 s, factor 4). Values above the last bound fall in the
// implicit +Inf bucket.
var DurationBuckets = [...]float64{
	10e-6, 40e-6, 160e-6, 640e-6, 2.56e-3, 10.24e-3, 40.96e-3, 163.84e-3, 655.36e-3, 2.62144, 10.48576,
}

// durationHist counts observations per bucket of DurationBuckets; the last
// element is the +Inf bucket. Counts are per bucket, not cumulative.
type durationHist [len(DurationBuckets) + 1]int64

func (h *durationHist) observe(d time.Duration) {
	s := d.Seconds()
	for i, bound := range DurationBuckets {
		if s <= bound {
			h[i]++
			return
		}
	}
	h[len(DurationBuckets)]++
}

func (h *durationHist) merge(o *durationHist) {
	for i := range h {
		h[i] += o[i]
	}
}

// PhaseStats are the timings of one phase: how many times it ran, its
// total and longest wall time, and its total CPU time over the CPUCount
// runs whose CPU time could be measured (the thread's CPU time is only
// meaningful when the goroutine stayed on one OS thread for the phase).
type PhaseStats struct {
	Count    int64
	Wall     time.Duration
	MaxWall  time.Duration
	CPU      time.Duration
	CPUCount int64
	hist     durationHist
}

func (p *PhaseStats) observe(wall, cpu time.Duration, cpuOK bool) {
	p.Count++
	p.Wall += wall
	p.MaxWall = max(p.MaxWall, wall)
	if cpuOK {
		p.CPU += cpu
		p.CPUCount++
	}
	p.hist.observe(wall)
}

func (p *PhaseStats) merge(o *PhaseStats) {
	p.Count += o.Count
	p.Wall += o.Wall
	p.MaxWall = max(p.MaxWall, o.MaxWall)
	p.CPU += o.CPU
	p.CPUCount += o.CPUCount
	p.hist.merge(&o.hist)
}

// AsyncStats describe asynchronous loads: requests completed, the time each
// waited in the queue before a worker took it and the time its transfer
// took, and the live queue depth and active loads.
type AsyncStats struct {
	Workers     int64
	Completed   int64
	WaitSum     time.Duration
	WaitMax     time.Duration
	TransferSum time.Duration
	TransferMax time.Duration
	// Queue and Active are gauges: requests queued and requests being
	// transferred when the statistics were taken.
	Queue  int64
	Active int64

	waitHist, transferHist durationHist
}

// WaitMean is the mean queue wait of the completed requests.
func (a AsyncStats) WaitMean() time.Duration { return meanDuration(a.WaitSum, a.Completed) }

// TransferMean is the mean transfer time of the completed requests.
func (a AsyncStats) TransferMean() time.Duration { return meanDuration(a.TransferSum, a.Completed) }

func meanDuration(sum time.Duration, n int64) time.Duration {
	if n == 0 {
		return 0
	}
	return sum / time.Duration(n)
}

func (a *AsyncStats) observe(wait, transfer time.Duration) {
	a.Completed++
	a.WaitSum += wait
	a.WaitMax = max(a.WaitMax, wait)
	a.TransferSum += transfer
	a.TransferMax = max(a.TransferMax, transfer)
	a.waitHist.observe(wait)
	a.transferHist.observe(transfer)
}

// merge folds o in; gauges add up, since each part reports its own share.
func (a *AsyncStats) merge(o *AsyncStats) {
	a.Workers += o.Workers
	a.Completed += o.Completed
	a.WaitSum += o.WaitSum
	a.WaitMax = max(a.WaitMax, o.WaitMax)
	a.TransferSum += o.TransferSum
	a.TransferMax = max(a.TransferMax, o.TransferMax)
	a.Queue += o.Queue
	a.Active += o.Active
	a.waitHist.merge(&o.waitHist)
	a.transferHist.merge(&o.transferHist)
}

// Load are the statistics of one transfer direction: pages moved, store
// calls, bytes landed, pages that failed, per-phase timings and, for
// asynchronous loads, queue statistics. The zero value is ready to use; it
// is not safe for concurrent use (LoadRecorder is).
type Load struct {
	Op          Op
	Pages       int64
	StoreCalls  int64
	Bytes       int64
	FailedPages int64
	Phases      [NumPhases]PhaseStats
	// Async is nil unless the loads are asynchronous.
	Async *AsyncStats
}

// AddCall records one store call that moved pages pages (bytes of them
// landed) and failed on failedPages more.
func (l *Load) AddCall(pages int, bytes int64, failedPages int) {
	l.StoreCalls++
	l.Pages += int64(pages)
	l.Bytes += bytes
	l.FailedPages += int64(failedPages)
}

// Wall is the wall time of l's phases summed: the time the calls took,
// as the goroutines that ran them saw it.
func (l Load) Wall() time.Duration {
	var w time.Duration
	for _, p := range l.Phases {
		w += p.Wall
	}
	return w
}

// ObservePhase records one run of phase p; cpu counts only when cpuOK.
func (l *Load) ObservePhase(p Phase, wall, cpu time.Duration, cpuOK bool) {
	if p >= 0 && p < NumPhases {
		l.Phases[p].observe(wall, cpu, cpuOK)
	}
}

// ObserveAsync records one completed asynchronous load request.
func (l *Load) ObserveAsync(wait, transfer time.Duration) {
	l.async().observe(wait, transfer)
}

// async returns l's AsyncStats, creating them when l has none.
func (l *Load) async() *AsyncStats {
	if l.Async == nil {
		l.Async = &AsyncStats{}
	}
	return l.Async
}

// Merge folds o into l: counters and times add, maxima take the larger,
// and the async gauges (workers, queue, active) add, as when each worker
// kept its own Load. l keeps its Op unless it has none.
func (l *Load) Merge(o Load) {
	if l.Op == "" {
		l.Op = o.Op
	}
	l.Pages += o.Pages
	l.StoreCalls += o.StoreCalls
	l.Bytes += o.Bytes
	l.FailedPages += o.FailedPages
	for i := range l.Phases {
		l.Phases[i].merge(&o.Phases[i])
	}
	if o.Async != nil {
		l.async().merge(o.Async)
	}
}

// Clone returns a deep copy of l.
func (l Load) Clone() Load {
	if l.Async != nil {
		a := *l.Async
		l.Async = &a
	}
	return l
}

type phaseJSON struct {
	Count    int64   `json:"count"`
	WallMS   float64 `json:"wall_ms"`
	MaxMS    float64 `json:"max_ms"`
	CPUMS    float64 `json:"cpu_ms"`
	CPUCount int64   `json:"cpu_count"`
}

type asyncJSON struct {
	Workers        int64   `json:"workers"`
	Completed      int64   `json:"completed"`
	WaitMeanMS     float64 `json:"wait_ms_mean"`
	WaitMaxMS      float64 `json:"wait_ms_max"`
	TransferMeanMS float64 `json:"transfer_ms_mean"`
	TransferMaxMS  float64 `json:"transfer_ms_max"`
	Queue          int64   `json:"queue"`
	Active         int64   `json:"active"`
}

type loadJSON struct {
	Op          Op                   `json:"op"`
	Pages       int64                `json:"pages"`
	StoreCalls  int64                `json:"store_calls"`
	Bytes       int64                `json:"bytes"`
	FailedPages int64                `json:"failed_pages"`
	Phases      map[string]phaseJSON `json:"phases"`
	Async       *asyncJSON           `json:"async,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MarshalJSON writes l with snake_case fields, times in milliseconds and
// only the phases that ran, keyed by name.
func (l Load) MarshalJSON() ([]byte, error) {
	v := loadJSON{Op: l.Op, Pages: l.Pages, StoreCalls: l.StoreCalls, Bytes: l.Bytes,
		FailedPages: l.FailedPages, Phases: map[string]phaseJSON{}}
	for i, p := range l.Phases {
		if p.Count == 0 {
			continue
		}
		v.Phases[Phase(i).String()] = phaseJSON{Count: p.Count, WallMS: ms(p.Wall),
			MaxMS: ms(p.MaxWall), CPUMS: ms(p.CPU), CPUCount: p.CPUCount}
	}
	if a := l.Async; a != nil {
		v.Async = &asyncJSON{Workers: a.Workers, Completed: a.Completed,
			WaitMeanMS: ms(a.WaitMean()), WaitMaxMS: ms(a.WaitMax),
			TransferMeanMS: ms(a.TransferMean()), TransferMaxMS: ms(a.TransferMax),
			Queue: a.Queue, Active: a.Active}
	}
	return json.Marshal(v)
}
