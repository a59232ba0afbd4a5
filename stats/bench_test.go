package stats

import (
	"testing"
	"time"
)

func benchPresence(n int) []bool {
	p := make([]bool, n)
	for i := range p {
		p[i] = i < n/2 || i%7 == 0
	}
	return p
}

func BenchmarkAnalyze(b *testing.B) {
	p := benchPresence(512)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		_ = Analyze(p, 32)
	}
}

func BenchmarkAnalyzeCounts(b *testing.B) {
	p := benchPresence(512)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		_ = AnalyzeCounts(p, 32)
	}
}

func BenchmarkPhaseTimer(b *testing.B) {
	r := NewLoadRecorder(OpLoad)
	for b.Loop() {
		t := r.Start(PhaseGet)
		t.Next(PhaseUnstage)
		t.Stop()
	}
}

func BenchmarkPhaseTimerOff(b *testing.B) {
	var r *LoadRecorder
	for b.Loop() {
		t := r.Start(PhaseGet)
		t.Next(PhaseUnstage)
		t.Stop()
	}
}

func BenchmarkParseLine(b *testing.B) {
	line := "2026-01-02 10:00:00 INFO " + LoadLine(0, sampleLoad())
	for b.Loop() {
		if _, _, err := ParseLine(line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecorderAddCall(b *testing.B) {
	r := NewLoadRecorder(OpLoad)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.AddCall(64, 1<<20, 0)
			r.ObservePhase(PhaseGet, time.Millisecond, 0, false)
		}
	})
}
