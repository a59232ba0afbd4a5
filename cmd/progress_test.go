package cmd

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// ttyProgress starts a bar over test streams whose stderr counts as a
// terminal, on a clock that moves a second at each reading.
func ttyProgress(t *testing.T, g *globalOptions, total int) (*progress, *IOStreams, *strings.Builder) {
	t.Helper()
	ios, _, _ := NewTestIOStreams("")
	errOut := &strings.Builder{}
	ios.ErrOut, ios.ErrTTY = errOut, true
	now := time.Unix(0, 0)
	ios.Now = func() time.Time { now = now.Add(time.Second); return now }
	return newProgress(ios, g, "replay", "requests", total), ios, errOut
}

// lastDrawing is what the last redraw in the stderr text s left on the
// line.
func lastDrawing(s string) string {
	return s[strings.LastIndex(s, ansi.EraseEntireLine)+len(ansi.EraseEntireLine):]
}

func TestProgressLineRender(t *testing.T) {
	tests := []struct {
		name  string
		line  progressLine
		width int
		want  string
	}{
		{"wide, with a total", progressLine{label: "replay", unit: "requests", done: 5729, total: 12031, elapsed: 20 * time.Second, note: "hit rate 34.8%"}, 120,
			"replay ██████████████░░░░░░░░░░░░░░░░ 47.6% · 5,729/12,031 requests · 286/s · ETA 23s · hit rate 34.8%"},
		{"narrow: the shortest bar, the note cut", progressLine{label: "replay", unit: "requests", done: 5729, total: 12031, elapsed: 20 * time.Second, note: "hit rate 34.8%"}, 80,
			"replay ████░░░░░░ 47.6% · 5,729/12,031 requests · 286/s · ETA 23s · hit rate 3…"},
		{"a bar narrowed for the note", progressLine{label: "replay", unit: "requests", done: 5729, total: 12031, elapsed: 20 * time.Second, note: "hit rate 34.8%"}, 100,
			"replay ████████████░░░░░░░░░░░░░░░ 47.6% · 5,729/12,031 requests · 286/s · ETA 23s · hit rate 34.8%"},
		{"too narrow for a bar", progressLine{label: "bench", unit: "runs", done: 2, total: 6, elapsed: 100 * time.Second}, 40,
			"bench 33.3% · 2/6 runs · 1.2/min · ETA…"},
		{"no total: count, rate, time elapsed", progressLine{label: "probing", unit: "requests", done: 10137, elapsed: 9500 * time.Millisecond}, 120,
			"probing 10,137 requests · 1,067/s · 10s"},
		{"nothing done yet", progressLine{label: "bench", unit: "runs", total: 6}, 120,
			"bench ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░ 0.0% · 0/6 runs · –/s · ETA –"},
		{"all done", progressLine{label: "bench", unit: "runs", done: 6, total: 6, elapsed: 3 * time.Second}, 120,
			"bench ██████████████████████████████ 100.0% · 6/6 runs · 2.0/s · ETA 0s"},
		{"an hour left", progressLine{label: "simulating", unit: "requests", done: 1, total: 3601, elapsed: time.Second}, 120,
			"simulating ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░ 0.0% · 1/3,601 requests · 1.0/s · ETA 1h00m"},
	}
	for _, tt := range tests {
		got := tt.line.render(tt.width)
		if got != tt.want {
			t.Errorf("%s: render(%d) = %q, want %q", tt.name, tt.width, got, tt.want)
		}
		if w := ansi.StringWidth(got); w >= tt.width {
			t.Errorf("%s: render(%d) is %d columns wide, want fewer than %d", tt.name, tt.width, w, tt.width)
		}
	}
}

func TestShortDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {1500 * time.Millisecond, "2s"}, {59 * time.Second, "59s"}, {185 * time.Second, "3m05s"},
		{time.Hour - time.Second, "59m59s"}, {time.Hour + 90*time.Second, "1h02m"}, {30 * time.Hour, "30h00m"},
	}
	for _, tt := range tests {
		if got := shortDuration(tt.d); got != tt.want {
			t.Errorf("shortDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestProgressUpdatePart checks that the bar counts the sum over the parts,
// each at its latest count.
func TestProgressUpdatePart(t *testing.T) {
	bar, _, errOut := ttyProgress(t, &globalOptions{}, 40)
	bar.updatePart(1, 10, "")
	bar.updatePart(2, 5, "")
	bar.updatePart(1, 12, "")
	if got := lastDrawing(errOut.String()); !strings.Contains(got, " 17/40 requests ") {
		t.Errorf("after parts 1: 12 and 2: 5, the bar reads %q, want 17/40 requests", got)
	}
}

// TestProgressOn checks when the bar is drawn: on a terminal, also with
// JSON output (stdout carries the data) and NO_COLOR (the bar has no
// colour); never with --quiet, on a dumb terminal or when stderr is not a
// terminal.
func TestProgressOn(t *testing.T) {
	tests := []struct {
		name string
		tty  bool
		g    globalOptions
		env  map[string]string
		want bool
	}{
		{"terminal", true, globalOptions{}, nil, true},
		{"terminal, -o json", true, globalOptions{Output: "json"}, nil, true},
		{"terminal, NO_COLOR", true, globalOptions{}, map[string]string{"NO_COLOR": "1"}, true},
		{"terminal, --quiet", true, globalOptions{Quiet: true}, nil, false},
		{"dumb terminal", true, globalOptions{}, map[string]string{"TERM": "dumb"}, false},
		{"not a terminal", false, globalOptions{}, nil, false},
	}
	for _, tt := range tests {
		ios, _, errOut := NewTestIOStreams("")
		ios.ErrTTY = tt.tty
		ios.Getenv = func(k string) string { return tt.env[k] }
		bar := newProgress(ios, &tt.g, "bench", "runs", 4)
		bar.update(4, "")
		bar.finish()
		if got := strings.Contains(errOut.String(), "4/4 runs"); got != tt.want {
			t.Errorf("%s: bar drawn = %v, want %v (stderr %q)", tt.name, got, tt.want, errOut)
		}
	}
}

// TestProgressLogAboveBar checks that a line written to stderr while the
// bar is live clears the bar, stands on a line of its own, and that the
// bar is drawn again after it; and that stderr is given back at finish.
func TestProgressLogAboveBar(t *testing.T) {
	bar, ios, errOut := ttyProgress(t, &globalOptions{}, 100)
	bar.update(10, "")
	fmt.Fprintln(ios.ErrOut, "prefix-hole stats: lookups=1768")
	clearBar := "\r" + ansi.EraseEntireLine
	got := errOut.String()
	want := clearBar + "prefix-hole stats: lookups=1768\n" + clearBar + "replay "
	if !strings.Contains(got, want) {
		t.Errorf("stderr after a log line = %q, want the bar cleared before the line and drawn after it (%q)", got, want)
	}
	bar.finish()
	if ios.ErrOut != errOut {
		t.Errorf("ErrOut after finish = %T, want the stderr given to newProgress", ios.ErrOut)
	}
	if !strings.HasSuffix(errOut.String(), clearBar) {
		t.Errorf("stderr after finish = %q, want it to end with the bar cleared", errOut)
	}
}

// TestProgressPartialLine checks that a write that does not end its line
// is not overdrawn by the bar until the line is ended.
func TestProgressPartialLine(t *testing.T) {
	bar, ios, errOut := ttyProgress(t, &globalOptions{}, 100)
	bar.update(10, "")
	fmt.Fprint(ios.ErrOut, "warning: ")
	bar.update(20, "")
	if got := errOut.String(); !strings.HasSuffix(got, "warning: ") {
		t.Errorf("stderr after an update during a partial line = %q, want it to end with the partial line", got)
	}
	fmt.Fprint(ios.ErrOut, "slow pool\n")
	if got := lastDrawing(errOut.String()); !strings.Contains(got, "20/100") {
		t.Errorf("bar after the line ended = %q, want it drawn at 20/100", got)
	}
}

func TestProgressOffWithoutTerminal(t *testing.T) {
	ios, _, errOut := NewTestIOStreams("")
	bar := newProgress(ios, &globalOptions{}, "simulating", "requests", 40)
	bar.updatePart(1, 10, "")
	bar.update(20, "")
	fmt.Fprintln(ios.ErrOut, "a log line")
	bar.finish()
	if got := errOut.String(); got != "a log line\n" {
		t.Errorf("progress with stderr not a terminal left stderr %q, want only the log line", got)
	}
}
