package connector

import (
	"time"

	"github.com/kvctl/kvctl/stats"
)

// Stats are the connector's statistics recorders: prefix holes of the
// scheduler half's lookups, and the worker's loads and saves. Each keeps a
// running total and a window for the periodic log lines.
type Stats struct {
	Holes *stats.HolesRecorder
	Load  *stats.LoadRecorder
	Save  *stats.LoadRecorder

	interval *stats.Interval
	rank     int
	emit     func(line string)
}

// NewStats returns fresh recorders whose lines (stats_interval) are
// emitted through emit at most once per every, on the clock now (nil:
// time.Now). An every of zero or less, or a nil emit, emits nothing. rank
// is written into each line unless it is stats.NoRank.
func NewStats(every time.Duration, now func() time.Time, rank int, emit func(line string)) *Stats {
	s := &Stats{Holes: stats.NewHolesRecorder(), Load: stats.NewLoadRecorder(stats.OpLoad),
		Save: stats.NewLoadRecorder(stats.OpSave), rank: rank, emit: emit}
	if every > 0 && emit != nil {
		s.interval = stats.NewInterval(every, now)
	}
	return s
}

// Tick emits the lines of the window since the last emission when an
// interval has passed: a prefix-hole stats line, a load stats line for
// loads and one for saves.
func (s *Stats) Tick() {
	if s.interval.Due() {
		s.Flush()
	}
}

// Flush emits the current window's lines now, if lines are on.
func (s *Stats) Flush() {
	if s.interval == nil {
		return
	}
	s.emit(stats.HolesLine(s.rank, s.Holes.TakeWindow()))
	s.emit(stats.LoadLine(s.rank, s.Load.TakeWindow()))
	s.emit(stats.LoadLine(s.rank, s.Save.TakeWindow()))
}
