package crew

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvctl/kvctl/internal/benchcpu"
	"github.com/kvctl/kvctl/internal/tracetest"
	"github.com/kvctl/kvctl/stats"
)

func TestCrewRunsEveryChunkOnce(t *testing.T) {
	for _, helpers := range []int{0, 1, 3} {
		c := New(helpers, DefaultPark, clockIf(helpers == 1))
		for round := range 20 {
			const n = 97
			var runs [n]atomic.Int32
			task := c.Post(n, func(j int) error { runs[j].Add(1); return nil })
			got, err := task.Wait()
			if got != n || err != nil {
				t.Fatalf("helpers %d round %d: Wait() = %d, %v, want %d, nil", helpers, round, got, err, n)
			}
			for j := range runs {
				if r := runs[j].Load(); r != 1 {
					t.Fatalf("helpers %d round %d: chunk %d ran %d times, want 1", helpers, round, j, r)
				}
			}
		}
		c.Close()
	}
}

// TestCrewQueuesTasks posts several tasks before waiting for any, as a
// pipeline does with the store calls of its next sets, and checks that
// every chunk of each runs once, whichever order they are waited in.
func TestCrewQueuesTasks(t *testing.T) {
	tests := []struct {
		helpers  int
		reversed bool
	}{{0, false}, {0, true}, {1, false}, {3, false}, {3, true}}
	sizes := []int{5, 1, 40, 0, 17}
	for _, tt := range tests {
		c := New(tt.helpers, DefaultPark, clockIf(tt.helpers == 1))
		for round := range 20 {
			runs := make([][]atomic.Int32, len(sizes))
			tasks := make([]*Task, len(sizes))
			for k, n := range sizes {
				runs[k] = make([]atomic.Int32, n)
				tasks[k] = c.Post(n, func(j int) error { runs[k][j].Add(1); return nil })
			}
			for i := range tasks {
				k := i
				if tt.reversed {
					k = len(tasks) - 1 - i
				}
				if got, err := tasks[k].Wait(); got != sizes[k] || err != nil {
					t.Fatalf("helpers %d round %d: task %d Wait() = %d, %v, want %d, nil", tt.helpers, round, k, got, err, sizes[k])
				}
				for j := range runs[k] {
					if r := runs[k][j].Load(); r != 1 {
						t.Fatalf("helpers %d round %d: task %d chunk %d ran %d times, want 1", tt.helpers, round, k, j, r)
					}
				}
			}
		}
		c.Close()
	}
}

func TestCrewJoinsErrors(t *testing.T) {
	c := New(2, DefaultPark, fakeClock)
	defer c.Close()
	bad := errors.New("chunk 3 failed")
	task := c.Post(8, func(j int) error {
		if j == 3 {
			return bad
		}
		return nil
	})
	if n, err := task.Wait(); n != 8 || !errors.Is(err, bad) {
		t.Errorf("Wait() = %d, %v, want 8 and the chunk's error", n, err)
	}
	if n, err := c.Post(0, func(int) error { return bad }).Wait(); n != 0 || err != nil {
		t.Errorf("Wait() of an empty task = %d, %v, want 0, nil", n, err)
	}
}

// TestCrewWakesParkedHelpers parks the helpers (a short park time) and
// checks that the next task wakes those it needs: its three chunks run
// at once (each blocks until all three started), so helpers 0 and 1 took
// two of them, while helper 2, not needed, stays parked.
func TestCrewWakesParkedHelpers(t *testing.T) {
	c := New(3, time.Microsecond, nil)
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !c.helpers[0].parked.Load() || !c.helpers[1].parked.Load() || !c.helpers[2].parked.Load() {
		if time.Now().After(deadline) {
			t.Fatal("helpers not parked after 5 s")
		}
		time.Sleep(time.Millisecond)
	}
	release := make(chan struct{})
	var others atomic.Int32
	task := c.Post(3, func(j int) error {
		if others.Add(1) == 3 {
			close(release)
		}
		<-release // every chunk blocks until all three have started
		return nil
	})
	if n, err := task.Wait(); n != 3 || err != nil {
		t.Errorf("Wait() = %d, %v, want 3, nil", n, err)
	}
	if !c.helpers[2].parked.Load() {
		t.Error("helper 2 woke for a task of 3 chunks, want it parked")
	}
}

// TestHelperReadsItsClockOncePerRun checks that a helper reads its thread
// clock once before and once after the chunks it runs one after the
// other, not around each, and that their CPU time is in the task when
// Wait returns.
func TestHelperReadsItsClockOncePerRun(t *testing.T) {
	var reads atomic.Int64
	clock := func() time.Duration { return time.Duration(reads.Add(1)) }
	c := New(1, DefaultPark, clock)
	defer c.Close()
	task := c.Post(16, func(int) error { return nil })
	deadline := time.Now().Add(5 * time.Second)
	for task.left.Load() > 0 { // the helper runs every chunk: Wait runs none
		if time.Now().After(deadline) {
			t.Fatal("the helper ran no chunk in 5 s")
		}
		time.Sleep(100 * time.Microsecond)
	}
	task.Wait()
	if got := reads.Load(); got != 2 {
		t.Errorf("the helper read its clock %d times for 16 chunks in one run, want 2", got)
	}
	if got := task.CPU(); got != 1 {
		t.Errorf("CPU() = %v, want 1ns (the second reading less the first)", got)
	}
	for round := range 200 {
		task := c.Post(8, func(int) error { return nil })
		task.Wait()
		if n := reads.Load(); n%2 != 0 {
			t.Fatalf("round %d: %d clock readings when Wait returned: a run's CPU time was not in yet", round, n)
		}
	}
}

// fakeClock is a thread CPU clock that only advances.
var fakeTicks atomic.Int64

func fakeClock() time.Duration { return time.Duration(fakeTicks.Add(1)) }

// clockIf is fakeClock when measuring, else nil.
func clockIf(measure bool) func() time.Duration {
	if measure {
		return fakeClock
	}
	return nil
}

// TestSpinnerCountsIdleTime checks that a spinner knows how long it has
// spun, on one processor too, so that an idle helper parks.
func TestSpinnerCountsIdleTime(t *testing.T) {
	for _, one := range []bool{false, true} {
		s := spinner{one: one}
		if s.idle() != 0 {
			t.Fatalf("one=%v: idle() before spinning = %v, want 0", one, s.idle())
		}
		s.spin()
		time.Sleep(2 * time.Millisecond)
		if d := s.idle(); d < time.Millisecond {
			t.Errorf("one=%v: idle() after 2 ms of spinning = %v, want at least 1 ms", one, d)
		}
		s.reset()
		if s.idle() != 0 {
			t.Errorf("one=%v: idle() after reset = %v, want 0", one, s.idle())
		}
	}
}

// TestChunksShowInAnExecutionTrace checks that an execution trace
// (kvctl --exectrace) names each task posted and each chunk's span, which
// the analyses of docs/benchmarks.md read.
func TestChunksShowInAnExecutionTrace(t *testing.T) {
	tr := tracetest.Record(t, func() {
		c := New(1, DefaultPark, nil)
		defer c.Close()
		if _, err := c.Post(3, func(int) error { return nil }).Wait(); err != nil {
			t.Error(err)
		}
	})
	tracetest.CheckNames(t, tr, PostLog, ChunkRegion)
}

// BenchmarkChunks runs tasks of 64 chunks of about a microsecond's work
// each on a crew of GOMAXPROCS-1 helpers (run with -cpu 2,16) and the
// waiting goroutine, the helpers' CPU time read from their threads' clocks
// (clock=thread, as kvctl bench does) or not at all (as serve does): the
// crew's price per chunk, which each store call of a staged set pays.
// cpu-ns/chunk is the process's CPU time per chunk, spinning included.
func BenchmarkChunks(b *testing.B) {
	for _, measure := range []bool{false, true} {
		name := "clock=none"
		var clock func() time.Duration
		if measure {
			name, clock = "clock=thread", func() time.Duration { d, _ := stats.ThreadCPU(); return d }
		}
		b.Run(name, func(b *testing.B) {
			c := New(runtime.GOMAXPROCS(0)-1, DefaultPark, clock)
			defer c.Close()
			var sink atomic.Int64
			work := func(j int) error {
				s := int64(0)
				for k := range 2000 {
					s += int64(k ^ j)
				}
				if s == 42 { // never: the chunks share no line but the crew's
					sink.Add(s)
				}
				return nil
			}
			cpu0 := benchcpu.Process(b)
			for b.Loop() {
				if _, err := c.Post(64, work).Wait(); err != nil {
					b.Fatal(err)
				}
			}
			cpu := benchcpu.Process(b) - cpu0
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/chunk")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*64), "cpu-ns/chunk")
		})
	}
}
