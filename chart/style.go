package chart

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The default figure size: 8 x 5 inches (768 x 480 pixels as PNG).
const (
	defaultWidth  = 8 * vg.Inch
	defaultHeight = 5 * vg.Inch
	// tallHeight is the height of a figure of two panels.
	tallHeight = 7 * vg.Inch
)

// sans is the face of every text: Liberation Sans, bundled with the
// plotting library.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// seriesColors tell series apart; their lightness differs too, so that
// neighbours stay apart in greyscale.
var seriesColors = []color.RGBA{
	{R: 0x1f, G: 0x4e, B: 0x9c, A: 0xff}, // blue
	{R: 0xe3, G: 0x6c, B: 0x0a, A: 0xff}, // orange
	{R: 0x2c, G: 0x8c, B: 0x3c, A: 0xff}, // green
	{R: 0xb0, G: 0x1c, B: 0x3e, A: 0xff}, // crimson
	{R: 0x76, G: 0x4b, B: 0xa8, A: 0xff}, // purple
	{R: 0x8c, G: 0x6d, B: 0x31, A: 0xff}, // brown
	{R: 0x17, G: 0xa0, B: 0xb8, A: 0xff}, // teal
	{R: 0x55, G: 0x55, B: 0x55, A: 0xff}, // grey
}

// referenceColor draws reference lines (baselines, ideal reuse).
var referenceColor = color.RGBA{A: 0xff}

// seriesColor is the colour of the i-th series.
func seriesColor(i int) color.RGBA { return seriesColors[i%len(seriesColors)] }

// seriesGlyph is the point shape of the i-th series: filled shapes that
// differ too, for print and colour-blind readers.
func seriesGlyph(i int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	return shapes[i%len(shapes)]
}

// newPlot is a plot with the title and axis labels given, every text in
// sans, and the legend at the top left inside the axes.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	for _, st := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		st.Typeface, st.Variant = sans.Typeface, sans.Variant
	}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), vg.Points(-6)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Add(gridLines())
	return p
}

// gridLines are light grey grid lines behind the data.
func gridLines() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 0xdd}
	g.Horizontal.Color = color.Gray{Y: 0xdd}
	return g
}

// maxGlyphs is the most points of a series drawn as glyphs; a longer
// series is a line alone.
const maxGlyphs = 120

// addSeries adds the i-th series: points joined by a line, in the
// series' colour and shape, named in the legend.
func addSeries(p *plot.Plot, i int, name string, pts plotter.XYs) error {
	line, scatter, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("series %q: %w", name, err)
	}
	line.Color = seriesColor(i)
	line.Width = vg.Points(1.5)
	scatter.Color = seriesColor(i)
	scatter.Shape = seriesGlyph(i)
	scatter.Radius = vg.Points(3)
	if len(pts) > maxGlyphs {
		p.Add(line)
		p.Legend.Add(name, line)
		return nil
	}
	p.Add(line, scatter)
	p.Legend.Add(name, line, scatter)
	return nil
}

// addReference adds a dashed black reference line through pts, named in
// the legend.
func addReference(p *plot.Plot, name string, pts plotter.XYs) error {
	line, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("reference %q: %w", name, err)
	}
	line.Color = referenceColor
	line.Width = vg.Points(1.2)
	line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	p.Add(line)
	p.Legend.Add(name, line)
	return nil
}
