package chart

import (
	"image/color"

	"github.com/kvctl/kvctl/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// binnedGrid is the states of reqs' blocks, one row per request and one
// column per block, binned down to at most MaxMapRows x MaxMapCols cells.
func binnedGrid(reqs []stats.RequestHoles) ([][]BlockState, Binning) {
	widest := 0
	for _, r := range reqs {
		widest = max(widest, len(r.Map))
	}
	bin := Binning{Requests: ceilDiv(len(reqs), MaxMapRows), Blocks: max(1, ceilDiv(widest, MaxMapCols))}
	rows, cols := ceilDiv(len(reqs), bin.Requests), ceilDiv(widest, bin.Blocks)
	counts := make([][][5]int, rows)
	for i := range counts {
		counts[i] = make([][5]int, cols)
	}
	for i, r := range reqs {
		for j, s := range States(r.Map) {
			counts[i/bin.Requests][j/bin.Blocks][s]++
		}
	}
	grid := make([][]BlockState, rows)
	for i := range grid {
		grid[i] = make([]BlockState, cols)
		for j, c := range counts[i] {
			grid[i][j] = cellState(c)
		}
	}
	return grid, bin
}

// cellState is the state a binned cell shows of the blocks counted in c:
// a hole if any block is one, else stranded if any block is, else the more
// frequent of hit and miss (miss on a tie), NoBlock only when no block was
// counted. Holes are what the map is for: binning must not hide one.
func cellState(c [5]int) BlockState {
	switch {
	case c[Hole] > 0:
		return Hole
	case c[Stranded] > 0:
		return Stranded
	case c[Hit] == 0 && c[Miss] == 0:
		return NoBlock
	case c[Hit] > c[Miss]:
		return Hit
	}
	return Miss
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// cellPlotter draws a grid of block states: row i covers requests
// [i, i+1) x Binning.Requests, column j blocks [j, j+1) x Binning.Blocks.
// A row's run of cells of one state is one rectangle.
type cellPlotter struct {
	grid [][]BlockState
	bin  Binning
}

// Plot draws the cells.
func (g *cellPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for i, row := range g.grid {
		y0, y1 := trY(float64(i*g.bin.Requests)), trY(float64((i+1)*g.bin.Requests))
		for j := 0; j < len(row); {
			k := j
			for k < len(row) && row[k] == row[j] {
				k++
			}
			if row[j] != NoBlock {
				x0, x1 := trX(float64(j*g.bin.Blocks)), trX(float64(k*g.bin.Blocks))
				c.FillPolygon(stateColors[row[j]], []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			}
			j = k
		}
	}
}

// DataRange is the blocks and requests the grid covers.
func (g *cellPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	cols := 0
	if len(g.grid) > 0 {
		cols = len(g.grid[0])
	}
	return 0, float64(cols * g.bin.Blocks), 0, float64(len(g.grid) * g.bin.Requests)
}

// swatch is a legend thumbnail filled with one colour.
type swatch color.RGBA

// Thumbnail fills the legend entry's box.
func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(color.RGBA(s), []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}
