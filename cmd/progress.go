package cmd

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// progress draws a one-line progress bar on stderr, only when stderr is a
// terminal, the output is not JSON and --quiet is off. Its methods are safe
// for concurrent use; a disabled progress does nothing.
type progress struct {
	ios   *IOStreams
	on    bool
	label string
	total int

	mu    sync.Mutex
	last  time.Time
	note  string
	parts map[int64]int // units done per part (updatePart)
}

func newProgress(ios *IOStreams, g *globalOptions, label string, total int) *progress {
	return &progress{ios: ios, on: ios.ErrTTY && !g.isJSON() && !g.Quiet, label: label, total: total}
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

// draw redraws the bar, at most ten times a second; p.mu is held.
func (p *progress) draw(done int, note string) {
	now := p.ios.Now()
	if now.Sub(p.last) < 100*time.Millisecond && done < p.total {
		return
	}
	p.last, p.note = now, note
	const width = 30
	bar := strings.Repeat("·", width)
	count := fmt.Sprintf("%d", done)
	if p.total > 0 {
		n := min(width, done*width/p.total)
		bar = strings.Repeat("█", n) + strings.Repeat("·", width-n)
		count = fmt.Sprintf("%d/%d", done, p.total)
	}
	fmt.Fprintf(p.ios.ErrOut, "\r"+ansi.EraseEntireLine+"%s %s %s %s", p.label, bar, count, note)
}

// done clears the bar.
func (p *progress) done() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.ios.ErrOut, "\r"+ansi.EraseEntireLine)
}
