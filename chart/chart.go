package chart

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Format is an image format a Chart renders to.
type Format int

// The formats Render writes.
const (
	// SVG is a standalone SVG document with its fonts embedded.
	SVG Format = iota
	// PNG is a PNG image at DPI dots per inch.
	PNG
)

// DPI is the resolution of PNG output.
const DPI = 96

// String is the format's file extension without the dot.
func (f Format) String() string {
	if f == PNG {
		return "png"
	}
	return "svg"
}

// FormatOf returns the format a file name asks for by its extension,
// .svg or .png (in any case).
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		return SVG, nil
	case ".png":
		return PNG, nil
	}
	return 0, fmt.Errorf("%q: want a file name ending in .svg or .png", path)
}

// Chart is one figure, ready to render.
type Chart struct {
	// Title is the figure's title, also drawn on it.
	Title string
	// panels are the figure's plots, stacked top to bottom.
	panels []*plot.Plot
	// legend, when set, is drawn in a column right of the plot instead
	// of the plot's own legend inside the axes.
	legend *plot.Legend
	// legendWidth is the width of the legend's column.
	legendWidth vg.Length
	w, h        vg.Length
}

// legendOutside moves the legend of c's first panel into a column of
// width lw right of the panels.
func (c *Chart) legendOutside(lw vg.Length) {
	p := c.panels[0]
	l := p.Legend
	l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
	p.Legend = plot.NewLegend()
	c.legend, c.legendWidth = &l, lw
}

// draw draws the figure on dc.
func (c *Chart) draw(dc draw.Canvas) {
	if c.legend != nil {
		right := dc
		dc.Max.X -= c.legendWidth
		right.Min.X = dc.Max.X
		right.Max.Y -= vg.Inch / 2
		c.legend.Draw(right)
	}
	if len(c.panels) == 1 {
		c.panels[0].Draw(dc)
		return
	}
	rows := make([][]*plot.Plot, len(c.panels))
	for i, p := range c.panels {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadY: vg.Points(8), PadTop: vg.Points(4), PadBottom: vg.Points(4)}
	canvases := plot.Align(rows, tiles, dc)
	for i, p := range c.panels {
		p.Draw(canvases[i][0])
	}
}

// Size is the figure's width and height in points (1/72 inch).
func (c *Chart) Size() (w, h float64) { return c.w.Points(), c.h.Points() }

// Render writes the figure to w in format f.
func (c *Chart) Render(w io.Writer, f Format) error {
	if f == PNG {
		canvas := vgimg.NewWith(vgimg.UseWH(c.w, c.h), vgimg.UseDPI(DPI))
		c.draw(draw.New(canvas))
		if _, err := (vgimg.PngCanvas{Canvas: canvas}).WriteTo(w); err != nil {
			return fmt.Errorf("rendering %q as png: %w", c.Title, err)
		}
		return nil
	}
	return c.renderSVG(w, true)
}

// InlineSVG writes the figure as an <svg> element to place inside an HTML
// page: no XML prolog and no embedded fonts (text names the Liberation
// Sans family, and a viewer without it draws a similar sans-serif).
func (c *Chart) InlineSVG(w io.Writer) error {
	var buf bytes.Buffer
	if err := c.renderSVG(&buf, false); err != nil {
		return err
	}
	doc := buf.Bytes()
	if i := bytes.Index(doc, []byte("<svg")); i > 0 {
		doc = doc[i:]
	}
	_, err := w.Write(doc)
	return err
}

func (c *Chart) renderSVG(w io.Writer, embed bool) error {
	canvas := vgsvg.NewWith(vgsvg.UseWH(c.w, c.h), vgsvg.EmbedFonts(embed))
	c.draw(draw.New(canvas))
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("rendering %q as svg: %w", c.Title, err)
	}
	return nil
}
