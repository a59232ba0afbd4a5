package stats

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var cmpLoad = cmp.Options{cmp.AllowUnexported(PhaseStats{}, AsyncStats{})}

func TestLoadMerge(t *testing.T) {
	a := Load{Op: OpLoad}
	a.AddCall(64, 64<<16, 0)
	a.ObservePhase(PhaseGet, 3*time.Millisecond, time.Millisecond, true)
	a.ObserveAsync(2*time.Millisecond, 8*time.Millisecond)
	b := Load{}
	b.AddCall(32, 31<<16, 1)
	b.ObservePhase(PhaseGet, 5*time.Millisecond, 0, false)
	b.ObservePhase(PhaseSync, time.Millisecond, time.Microsecond, true)
	b.ObserveAsync(4*time.Millisecond, 6*time.Millisecond)
	a.Merge(b)

	if a.Op != OpLoad || a.Pages != 96 || a.StoreCalls != 2 || a.Bytes != 95<<16 || a.FailedPages != 1 {
		t.Errorf("Merge counters = %+v, want op load, 96 pages, 2 calls, %d bytes, 1 failed", a, 95<<16)
	}
	get := a.Phases[PhaseGet]
	wantGet := PhaseStats{Count: 2, Wall: 8 * time.Millisecond, MaxWall: 5 * time.Millisecond, CPU: time.Millisecond, CPUCount: 1}
	if diff := cmp.Diff(wantGet, get, cmpopts.IgnoreUnexported(PhaseStats{})); diff != "" {
		t.Errorf("Merge get phase mismatch (-want +got):\n%s", diff)
	}
	if got := get.hist; got[5] != 2 { // 3 ms and 5 ms both fall in (2.56 ms, 10.24 ms]
		t.Errorf("get histogram = %v, want 2 in bucket 5", got)
	}
	if got, want := a.Wall(), 9*time.Millisecond; got != want {
		t.Errorf("Wall() after Merge = %v, want %v (the phases' wall times summed)", got, want)
	}
	as := a.Async
	if as.Completed != 2 || as.WaitMean() != 3*time.Millisecond || as.TransferMax != 8*time.Millisecond {
		t.Errorf("Merge async = %+v, want 2 completed, wait mean 3ms, transfer max 8ms", *as)
	}
}

func TestLoadJSON(t *testing.T) {
	l := Load{Op: OpSave}
	l.AddCall(2, 100, 0)
	l.ObservePhase(PhasePut, 1500*time.Microsecond, 500*time.Microsecond, true)
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"op":"save","pages":2,"store_calls":1,"bytes":100,"failed_pages":0,` +
		`"phases":{"put":{"count":1,"wall_ms":1.5,"max_ms":1.5,"cpu_ms":0.5,"cpu_count":1}}}`
	if string(b) != want {
		t.Errorf("json.Marshal(Load) = %s, want %s", b, want)
	}
}

func TestLoadRecorderConcurrent(t *testing.T) {
	r := NewLoadRecorder(OpLoad)
	r.SetAsync(4)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				r.AddCall(8, 8<<10, 0)
				tm := r.Start(PhaseResolve)
				tm.Next(PhaseGet)
				tm.Stop()
				tm.Stop() // a stopped timer records nothing more
				r.ObserveAsync(time.Millisecond, time.Millisecond)
				r.SetQueue(i, 1)
				_ = r.Total()
			}
		}()
	}
	wg.Wait()
	got := r.Total()
	if got.Pages != 3200 || got.StoreCalls != 400 || got.Phases[PhaseResolve].Count != 400 ||
		got.Phases[PhaseGet].Count != 400 || got.Phases[PhaseSync].Count != 0 {
		t.Errorf("Total() = %+v, want 3200 pages, 400 calls, 400 resolve and get runs", got)
	}
	if got.Async.Workers != 4 || got.Async.Completed != 400 || got.Async.Queue != 99 || got.Async.Active != 1 {
		t.Errorf("Total().Async = %+v, want 4 workers, 400 completed, queue 99, active 1", *got.Async)
	}
}

func TestLoadRecorderWindow(t *testing.T) {
	r := NewLoadRecorder(OpLoad)
	r.SetAsync(2)
	r.AddCall(4, 40, 0)
	r.SetQueue(3, 2)
	w1 := r.TakeWindow()
	r.AddCall(1, 10, 1)
	w2 := r.TakeWindow()
	tot := r.Total()
	if w1.Pages != 4 || w2.Pages != 1 || w2.FailedPages != 1 || tot.Pages != 5 || tot.Bytes != 50 {
		t.Errorf("windows %+v, %+v and total %+v, want 4, 1 (1 failed) and 5 pages", w1, w2, tot)
	}
	want := &AsyncStats{Workers: 2, Queue: 3, Active: 2}
	if diff := cmp.Diff(want, w2.Async, cmpLoad); diff != "" {
		t.Errorf("second window async mismatch (-want +got):\n%s", diff)
	}
}

func TestNilRecorders(t *testing.T) {
	var r *LoadRecorder
	tm := r.Start(PhaseGet)
	tm.Next(PhaseSync)
	tm.Stop()
	r.AddCall(1, 1, 1)
	r.ObserveAsync(1, 1)
	r.SetQueue(1, 1)
	r.SetAsync(1)
	if got := r.Total(); got.Pages != 0 || !tm.wall.IsZero() {
		t.Errorf("nil LoadRecorder recorded %+v (timer %+v), want nothing", got, tm)
	}
	var h *HolesRecorder
	h.Add(Analyze(presence("#."), 4))
	h.AddRequest(1, 1)
	h.AddLookup(RequestHoles{})
	if got := h.TakeWindow(); got != (Holes{}) {
		t.Errorf("nil HolesRecorder.TakeWindow() = %+v, want zero", got)
	}
}

func TestPhaseTimerRecordsCPU(t *testing.T) {
	r := NewLoadRecorder(OpSave)
	tm := r.Start(PhaseStage)
	x := 0
	for i := 0; i < 1_000_000; i++ {
		x += i * i
	}
	tm.Stop()
	p := r.Total().Phases[PhaseStage]
	if p.Count != 1 || p.Wall <= 0 || p.CPU < 0 || p.CPUCount > 1 || x == 0 {
		t.Errorf("phase after one timed run = %+v, want one run with positive wall time", p)
	}
}

func TestHolesRecorder(t *testing.T) {
	r := NewHolesRecorder()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				r.Add(Analyze(presence("##.#"), 8))
			}
		}()
	}
	wg.Wait()
	w := r.TakeWindow()
	r.AddLookup(Analyze(presence("#"), 8))
	if tot := r.Total(); w.Requests != 200 || w.Holes != 200 || tot.Lookups != 201 || r.TakeWindow().Lookups != 1 {
		t.Errorf("HolesRecorder window %+v total %+v, want 200 requests, 201 lookups", w, tot)
	}
}

func TestInterval(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	iv := NewInterval(10*time.Second, clock)
	steps := []struct {
		advance time.Duration
		want    bool
	}{{0, false}, {9 * time.Second, false}, {time.Second, true}, {time.Second, false}, {9 * time.Second, true}, {time.Hour, true}, {0, false}}
	for i, s := range steps {
		now = now.Add(s.advance)
		if got := iv.Due(); got != s.want {
			t.Errorf("step %d: Due() = %v, want %v", i, got, s.want)
		}
	}
	for _, off := range []*Interval{nil, NewInterval(0, clock), NewInterval(-time.Second, nil)} {
		now = now.Add(time.Hour)
		if off.Due() {
			t.Errorf("Due() on a disabled interval (%v) = true, want false", off.Every())
		}
	}
}

func TestPhaseNames(t *testing.T) {
	for p := Phase(0); p < NumPhases; p++ {
		back, err := ParsePhase(p.String())
		if err != nil || back != p {
			t.Errorf("ParsePhase(%q) = %v, %v, want %v", p.String(), back, err, p)
		}
	}
	if _, err := ParsePhase("warp"); err == nil {
		t.Errorf("ParsePhase(warp) error = nil, want an error")
	}
	if got := Phase(42).String(); got != "phase(42)" {
		t.Errorf("Phase(42).String() = %q, want phase(42)", got)
	}
	if got := OpSave.Phases(); !cmp.Equal(got, SavePhases) {
		t.Errorf("OpSave.Phases() = %v, want %v", got, SavePhases)
	}
}
