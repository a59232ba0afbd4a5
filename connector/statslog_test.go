package connector

import (
	"strings"
	"testing"
	"time"

	"github.com/kvctl/kvctl/stats"
)

func TestStatsLines(t *testing.T) {
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	var lines []string
	s := NewStats(10*time.Second, clock, stats.NoRank, func(l string) { lines = append(lines, l) })
	s.Holes.AddRequest(64, 2)
	s.Load.AddCall(3, 300, 1)
	now = now.Add(5 * time.Second)
	s.Tick()
	if len(lines) != 0 {
		t.Fatalf("Tick before the interval emitted %q, want nothing", lines)
	}
	now = now.Add(5 * time.Second)
	s.Tick()
	wantPrefix := []string{"prefix-hole stats: lookups=0", "load stats: op=load pages=3", "load stats: op=save pages=0"}
	if len(lines) != len(wantPrefix) {
		t.Fatalf("Tick after the interval emitted %d lines %q, want %d", len(lines), lines, len(wantPrefix))
	}
	for i, p := range wantPrefix {
		if !strings.HasPrefix(lines[i], p) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], p)
		}
	}
	if !strings.Contains(lines[1], "failed_pages=1") {
		t.Errorf("load line %q lacks failed_pages=1", lines[1])
	}
	// The window restarts: totals keep everything.
	if got := s.Load.Total().Pages; got != 3 {
		t.Errorf("load total pages = %d, want 3", got)
	}
}

func TestStatsOff(t *testing.T) {
	called := false
	s := NewStats(0, nil, stats.NoRank, func(string) { called = true })
	s.Tick()
	s.Flush()
	if called {
		t.Error("stats with a zero interval emitted a line")
	}
}
