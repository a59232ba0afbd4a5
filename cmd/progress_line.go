package cmd

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// progressLine is what one drawing of a progress bar shows.
type progressLine struct {
	label   string
	unit    string // plural noun of what is counted: "requests"
	done    int
	total   int // 0: unknown
	elapsed time.Duration
	note    string
}

// progressBarWidth is the widest the bar itself is drawn; it narrows on a
// narrow terminal and is left out below progressBarMinWidth.
const (
	progressBarWidth    = 30
	progressBarMinWidth = 10
)

// render lays the line out for a terminal width columns wide:
//
//	replay ██████░░░ 47.6% · 5,729/12,031 requests · 286/s · ETA 22s · note
//
// and, without a total, the count, the rate and the time elapsed:
//
//	probing 5,729 requests · 286/s · 20s · note
//
// It never fills the last column (a terminal would wrap the line and the
// next redraw would not erase it). The figures come first: the bar
// narrows to leave room for the note, down to progressBarMinWidth, then
// the note is cut short, then the bar is left out.
func (l progressLine) render(width int) string {
	text := l.figures()
	note := ""
	if l.note != "" {
		note = " · " + l.note
	}
	room := width - 1
	free := room - ansi.StringWidth(l.label+"  "+text)
	line := l.label + " " + text
	if barWidth := min(progressBarWidth, max(progressBarMinWidth, free-ansi.StringWidth(note)), free); l.total > 0 && barWidth >= progressBarMinWidth {
		line = l.label + " " + l.bar(barWidth) + " " + text
	}
	if left := room - ansi.StringWidth(line); note != "" && left > len(" · ")+1 {
		line += ansi.Truncate(note, left, "…")
	}
	return ansi.Truncate(line, room, "…")
}

// figures are the count, the rate and, with a total, the share done
// before them and the time left after; without one, the time elapsed.
func (l progressLine) figures() string {
	count := groupThousands(int64(l.done)) + " " + l.unit
	if l.total <= 0 {
		return strings.Join([]string{count, l.rate(), shortDuration(l.elapsed)}, " · ")
	}
	count = groupThousands(int64(l.done)) + "/" + groupThousands(int64(l.total)) + " " + l.unit
	return strings.Join([]string{l.percent(), count, l.rate(), "ETA " + l.eta()}, " · ")
}

// bar is width cells, the share done filled.
func (l progressLine) bar(width int) string {
	n := min(width, max(0, l.done*width/l.total))
	return strings.Repeat("█", n) + strings.Repeat("░", width-n)
}

// percent is the share done, rounded down so that it reads 100% only when
// all is done.
func (l progressLine) percent() string {
	return fmt.Sprintf("%.1f%%", math.Floor(1000*float64(l.done)/float64(l.total))/10)
}

// rate is units done per second since the start (per minute below one a
// second), "–/s" before there is one.
func (l progressLine) rate() string {
	secs := l.elapsed.Seconds()
	if secs <= 0 || l.done == 0 {
		return "–/s"
	}
	r := float64(l.done) / secs
	switch {
	case r >= 100:
		return groupThousands(int64(r)) + "/s"
	case r >= 1:
		return fmt.Sprintf("%.1f/s", r)
	}
	return fmt.Sprintf("%.1f/min", 60*r)
}

// eta is the time left at the rate so far, "–" before there is a rate.
func (l progressLine) eta() string {
	if l.done >= l.total {
		return "0s"
	}
	if l.done <= 0 || l.elapsed <= 0 {
		return "–"
	}
	left := time.Duration(float64(l.elapsed) * float64(l.total-l.done) / float64(l.done))
	return shortDuration(left)
}

// shortDuration writes d as 42s, 3m05s or 2h07m, rounded up to whole
// seconds (or minutes past an hour).
func shortDuration(d time.Duration) string {
	s := int64(math.Ceil(d.Seconds()))
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	m := (s + 59) / 60
	return fmt.Sprintf("%dh%02dm", m/60, m%60)
}
