package transfer

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"time"

	"github.com/kvctl/kvctl/internal/crew"
	"github.com/kvctl/kvctl/internal/hostload"
)

// timedRun is one timed transfer: its wall time and its counters.
type timedRun struct {
	seconds float64
	totals  Totals
}

// repeat times run Repeats times, each with counters of its own, and
// returns the runs; from the second on, reset first puts the pages back
// as the first run found them. It stops at the first error.
func (b *benchRun) repeat(ctx context.Context, reset func() error, run func(ctx context.Context) error) ([]timedRun, error) {
	var runs []timedRun
	for i := range b.o.Repeats {
		if i > 0 {
			if err := reset(); err != nil {
				return nil, err
			}
			runtime.GC() // no collection of the last run's garbage while timing
		}
		b.stats.Reset()
		var err error
		trace.Log(ctx, crew.TransferLog, "timed")
		start := time.Now()
		timed(ctx, func(ctx context.Context) { err = run(ctx) })
		runs = append(runs, timedRun{seconds: time.Since(start).Seconds(), totals: b.stats.Totals()})
		if err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// hostLoadWithin is how far, in cores, the others' load of a bench run
// may be off for the result to have it: the machine's tick counts tell
// it only over long enough runs (over 0.64 s on 16 cores). Runs shorter
// than hostLoadMinSeconds have none either: a tiny run's figure says
// little of the machine, and would warn of a busy machine in every test
// that runs one beside others.
const (
	hostLoadWithin     = 0.25
	hostLoadMinSeconds = 0.25
)

// hostWindow is the machine's load at a bench run's start.
type hostWindow struct {
	start hostload.Sample
	err   error
}

func startHostWindow() hostWindow {
	s, err := hostload.Take()
	return hostWindow{s, err}
}

// end sets r's figures of what other programs did since the window's
// start, when the machine says.
func (w hostWindow) end(r *BenchResult) {
	if w.err != nil {
		return
	}
	s, err := hostload.Take()
	if err != nil {
		return
	}
	l, err := s.Since(w.start)
	if err != nil || l.Within > hostLoadWithin || l.Seconds < hostLoadMinSeconds {
		return
	}
	hundredths := func(x float64) *float64 { x = math.Round(x*100) / 100; return &x }
	r.OthersBusyCores, r.StealCores = hundredths(l.OthersCores), hundredths(l.StealCores)
}

// takeMedian sets the result's time, rate, phases and device time from
// the median of the timed runs (of an even count, the faster of the
// middle two), and lists every run's time when there was more than one.
func (b *benchRun) takeMedian(runs []timedRun) {
	byTime := slices.Clone(runs)
	slices.SortStableFunc(byTime, func(x, y timedRun) int { return cmp.Compare(x.seconds, y.seconds) })
	m := byTime[(len(byTime)-1)/2]
	t := m.totals
	b.res.Seconds = m.seconds
	b.res.PhaseMS, b.res.PhaseCPUMS = t.Phases.Milliseconds(), t.CPU.Milliseconds()
	b.res.DeviceMS = float64(t.DeviceCopy) / float64(time.Millisecond)
	if !b.o.Async {
		b.res.CopyGBps = gbps(b.res.Bytes, t.DeviceCopy.Seconds())
	}
	b.res.StoreCalls = t.StoreCalls
	b.res.HelpersBusy = b.helpersBusy(t.Helpers, m.seconds)
	b.res.GBps = gbps(b.res.Bytes, b.res.Seconds)
	if len(runs) > 1 {
		for _, r := range runs {
			b.res.RunSeconds = append(b.res.RunSeconds, r.seconds)
		}
	}
}

// helpersBusy is the share of seconds of wall time the crew's helpers of
// every worker spent in store calls, given their CPU time cpu.
func (b *benchRun) helpersBusy(cpu time.Duration, seconds float64) float64 {
	helpers := (b.res.Parallel - 1) * max(1, b.res.Workers)
	if helpers <= 0 || seconds <= 0 {
		return 0
	}
	return cpu.Seconds() / (float64(helpers) * seconds)
}

// gbps is bytes over seconds in GB/s (10^9 bytes), 0 without time.
func gbps(bytes int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(bytes) / seconds / 1e9
}

// timed runs fn, the timed part of a bench run, with its goroutines (and
// those they start) labelled bench=timed, so that a CPU profile of the
// whole command can be narrowed to it: go tool pprof -tagfocus=bench=timed.
func timed(ctx context.Context, fn func(ctx context.Context)) {
	pprof.Do(ctx, pprof.Labels("bench", "timed"), fn)
}

// warmUp runs the transfer run Warmups times untimed, then forgets their
// phases and, for loads, zeroes the GPU pages again, so that verification
// sees only what the timed run moved.
func (b *benchRun) warmUp(run func() error) error {
	if b.o.Warmups == 0 {
		return nil
	}
	for range b.o.Warmups {
		trace.Log(context.Background(), crew.TransferLog, "warm-up")
		if err := run(); err != nil {
			return fmt.Errorf("bench warm-up: %w", err)
		}
	}
	b.stats.Reset()
	if b.o.Direction == DirectionLoad {
		if err := b.zeroGPU(); err != nil {
			return err
		}
	}
	runtime.GC()
	return nil
}
