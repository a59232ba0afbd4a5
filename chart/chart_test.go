package chart

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var keep = flag.String("keep", "", "write every rendered figure into this folder, to look at")

// readFixture decodes testdata/name into v.
func readFixture(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", name, err)
	}
}

// svgDoc is what the tests read back from an SVG: its texts and the fill
// colour of every filled path.
type svgDoc struct {
	texts []string
	fills []string
	// strokes are the stroke colours of every path ("" for none).
	strokes []string
}

// parseSVG parses an SVG document with encoding/xml.
func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return doc
		}
		if err != nil {
			t.Fatalf("parsing the SVG: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "text":
			var s string
			if err := d.DecodeElement(&s, &se); err != nil {
				t.Fatalf("parsing a <text>: %v", err)
			}
			doc.texts = append(doc.texts, s)
		case "path":
			doc.fills = append(doc.fills, fillOf(se))
			doc.strokes = append(doc.strokes, styleOf(se, "stroke"))
		}
	}
}

// fillOf is the fill colour of a path's style ("" for none).
func fillOf(se xml.StartElement) string { return styleOf(se, "fill") }

// styleOf is the value of a property of an element's style ("" for none).
func styleOf(se xml.StartElement, property string) string {
	for _, a := range se.Attr {
		if a.Name.Local != "style" {
			continue
		}
		for _, decl := range strings.Split(a.Value, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(decl), property+":"); ok && v != "none" {
				return v
			}
		}
	}
	return ""
}

// count is how many of xs equal x.
func count(xs []string, x string) int {
	n := 0
	for _, s := range xs {
		if s == x {
			n++
		}
	}
	return n
}

// svgColor spells a colour as package vgsvg writes it.
func svgColor(c color.Color) string {
	r, g, b, a := c.RGBA()
	k := 255.0 / float64(a)
	return fmt.Sprintf("#%02X%02X%02X", int(float64(r)*k), int(float64(g)*k), int(float64(b)*k))
}

// render renders c in format f, keeping a copy under -keep.
func render(t *testing.T, c *Chart, f Format, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(&buf, f); err != nil {
		t.Fatalf("Render(%v) = %v", f, err)
	}
	if *keep != "" {
		if err := os.WriteFile(filepath.Join(*keep, name+"."+f.String()), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// checkPNG decodes a PNG and checks its size in pixels.
func checkPNG(t *testing.T, c *Chart, b []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decoding the PNG: %v", err)
	}
	w, h := c.Size()
	want := image.Pt(int(w/72*DPI+0.5), int(h/72*DPI+0.5))
	if got := img.Bounds().Size(); got != want {
		t.Errorf("PNG size = %v, want %v", got, want)
	}
}

// hasTexts fails for each of want that no <text> of doc holds.
func hasTexts(t *testing.T, doc svgDoc, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(doc.texts, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("the SVG has no text %q; it has %q", w, doc.texts)
		}
	}
}
