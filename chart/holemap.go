package chart

import (
	"errors"
	"fmt"
	"image/color"

	"github.com/kvctl/kvctl/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// BlockState is what a lookup found of one block of a request.
type BlockState uint8

// The states of a block.
const (
	// NoBlock is past the end of a request's prompt.
	NoBlock BlockState = iota
	// Hit is a present block before the first missing one: reused.
	Hit
	// Miss is a missing block after which nothing is present: the tail.
	Miss
	// Stranded is a present block behind a missing one: stored, unusable.
	Stranded
	// Hole is a missing block followed, later, by a present one.
	Hole
)

// stateNames are the legend's names of the states.
var stateNames = [...]string{NoBlock: "no block", Hit: "hit", Miss: "miss (tail)", Stranded: "stranded (behind a hole)", Hole: "hole"}

// String is the state's legend name.
func (s BlockState) String() string { return stateNames[s] }

// stateColors tell the states apart in colour and, by lightness (hit
// darkest, then hole, stranded, miss), in greyscale.
var stateColors = [...]color.RGBA{
	NoBlock:  {R: 0xff, G: 0xff, B: 0xff, A: 0xff},
	Hit:      {R: 0x08, G: 0x30, B: 0x6b, A: 0xff}, // navy, ~16% lightness
	Hole:     {R: 0xe0, G: 0x32, B: 0x1e, A: 0xff}, // red, ~40%
	Stranded: {R: 0xfd, G: 0xae, B: 0x61, A: 0xff}, // light orange, ~73%
	Miss:     {R: 0xde, G: 0xde, B: 0xde, A: 0xff}, // light grey, ~87%
}

// States classifies each block of a hole map ('#' present, '.' missing).
func States(m string) []BlockState {
	out := make([]BlockState, len(m))
	last := -1 // the last present block
	for i := range m {
		if m[i] == '#' {
			last = i
		}
	}
	missing := false
	for i := range m {
		switch {
		case m[i] == '#' && !missing:
			out[i] = Hit
		case m[i] == '#':
			out[i] = Stranded
		case i < last:
			out[i], missing = Hole, true
		default:
			out[i], missing = Miss, true
		}
	}
	return out
}

// Binning is how a hole map groups requests and blocks into cells.
type Binning struct {
	// Requests and Blocks per cell; 1 and 1 draw every block.
	Requests, Blocks int
}

// String states the binning for the figure.
func (b Binning) String() string {
	if b.Requests == 1 && b.Blocks == 1 {
		return "one cell per block"
	}
	return fmt.Sprintf("binned: %s x %s per cell, holes shown first", nounCount(b.Requests, "request"), nounCount(b.Blocks, "block"))
}

// nounCount is n and noun, plural unless n is 1: "1 request", "3 requests".
func nounCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// HoleMap limits: larger maps are binned down to at most this many rows
// and columns of cells.
const (
	MaxMapRows = 120
	MaxMapCols = 160
)

// HoleMap charts the block maps of requests: requests down, blocks across,
// each block a hit, miss, hole or stranded block. Maps larger than
// MaxMapRows x MaxMapCols are binned; the figure states the binning.
func HoleMap(reqs []stats.RequestHoles) (*Chart, error) {
	if len(reqs) == 0 {
		return nil, errors.New("charting a hole map: no requests")
	}
	grid, bin := binnedGrid(reqs)
	title := "Hole map of " + nounCount(len(reqs), "request")
	x := "block"
	if bin.Blocks > 1 {
		x = fmt.Sprintf("block (%d per cell)", bin.Blocks)
	}
	y := "request, in order"
	if bin.Requests > 1 {
		y = fmt.Sprintf("request, in order (%d per cell)", bin.Requests)
	}
	p := newPlot(title+"\n"+bin.String(), x, y)
	p.Add(&cellPlotter{grid: grid, bin: bin})
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
	for _, s := range []BlockState{Hit, Hole, Stranded, Miss} {
		p.Legend.Add(s.String(), swatch(stateColors[s]))
	}
	c := &Chart{Title: title, panels: []*plot.Plot{p}, w: defaultWidth, h: defaultHeight}
	c.legendOutside(1.9 * vg.Inch)
	return c, nil
}
