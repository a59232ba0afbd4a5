package cmd

// The progress bar long runs draw on stderr, and the one way to write to
// stderr while it is on screen.

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// progress draws a one-line progress bar on stderr (see progressLine for
// what it shows) when stderr is a terminal that is not dumb and --quiet is
// off, whatever --output is: stdout carries the data, so a bar on stderr
// cannot corrupt JSON. NO_COLOR does not turn it off: the bar has no
// colour. Its methods are safe for concurrent use; a disabled progress
// does nothing.
//
// While the bar is live (from newProgress to finish) IOStreams.ErrOut writes
// through it, so that a log or warning line written to stderr in that time
// (a --stats-interval line) clears the bar, is printed on a line of its
// own and the bar is drawn again below it.
type progress struct {
	ios   *IOStreams
	on    bool
	label string
	unit  string
	total int
	start time.Time

	mu       sync.Mutex
	errOut   io.Writer // the real stderr, while the bar is live
	last     time.Time // when the bar was last drawn
	done     int       // units done at the last update
	note     string    // the note of the last update
	shown    bool      // the bar is on screen
	midLine  bool      // stderr's last write did not end its line
	finished bool      // finish has run
	parts    map[int64]int
}

// progressInterval is how often at most the bar is redrawn.
const progressInterval = 100 * time.Millisecond

// newProgress starts a bar labelled label that counts units (a plural
// noun such as "requests") up to total, or without a total when total is
// 0; while it is on, ios.ErrOut writes through it until finish.
func newProgress(ios *IOStreams, g *globalOptions, label, unit string, total int) *progress {
	p := &progress{ios: ios, label: label, unit: unit, total: total, start: ios.Now()}
	p.on = ios.ErrTTY && !g.Quiet && ios.Getenv("TERM") != "dumb"
	if p.on {
		p.errOut = ios.ErrOut
		ios.ErrOut = progressWriter{p}
	}
	return p
}

// update redraws the bar for done units (at most ten times a second), with
// an optional note after it.
func (p *progress) update(done int, note string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(done, note)
}

// updatePart records that part (one of several pieces of the work, running
// in parallel) has done units, and redraws the bar for the sum over the
// parts.
func (p *progress) updatePart(part int64, done int, note string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.parts == nil {
		p.parts = make(map[int64]int)
	}
	p.parts[part] = done
	sum := 0
	for _, n := range p.parts {
		sum += n
	}
	p.draw(sum, note)
}

// draw redraws the bar, at most ten times a second unless the work is
// complete; p.mu is held.
func (p *progress) draw(done int, note string) {
	p.done, p.note = done, note
	now := p.ios.Now()
	complete := p.total > 0 && done >= p.total
	if p.finished || p.midLine || (now.Sub(p.last) < progressInterval && !complete) {
		return
	}
	p.last = now
	p.redraw(now)
}

// redraw writes the bar over the current line; p.mu is held.
func (p *progress) redraw(now time.Time) {
	line := progressLine{
		label: p.label, unit: p.unit, done: p.done, total: p.total,
		elapsed: now.Sub(p.start), note: p.note,
	}.render(widthOf(p.errOut))
	io.WriteString(p.errOut, "\r"+ansi.EraseEntireLine+line)
	p.shown = true
}

// clear erases the bar from the screen; p.mu is held.
func (p *progress) clear() {
	if p.shown {
		io.WriteString(p.errOut, "\r"+ansi.EraseEntireLine)
		p.shown = false
	}
}

// finish clears the bar and gives stderr back to ios. Calling it again
// does nothing.
func (p *progress) finish() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.clear()
	p.finished = true
	p.ios.ErrOut = p.errOut
}

// writeAbove writes b to stderr on lines of its own above the bar: it
// clears the bar, writes b and, once b has ended its line, draws the bar
// again.
func (p *progress) writeAbove(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	n, err := p.errOut.Write(b)
	p.midLine = len(b) > 0 && !bytes.HasSuffix(b, []byte("\n"))
	if !p.midLine && !p.finished && !p.last.IsZero() {
		p.redraw(p.ios.Now())
	}
	return n, err
}

// progressWriter is stderr while a bar is live: every write goes above
// the bar.
type progressWriter struct{ p *progress }

func (w progressWriter) Write(b []byte) (int, error) { return w.p.writeAbove(b) }
