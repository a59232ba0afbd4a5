package chart

import (
	"strings"
	"testing"

	"github.com/kvctl/kvctl/holes"
)

func TestCapacitySweep(t *testing.T) {
	var sweep struct {
		Runs       []holes.Run `json:"runs"`
		IdealReuse *float64    `json:"ideal_reuse"`
	}
	readFixture(t, "holes_sweep.json", &sweep)
	ideal := 0.44
	c, err := CapacitySweep(sweep.Runs, &ideal)
	if err != nil {
		t.Fatalf("CapacitySweep() = %v", err)
	}
	doc := parseSVG(t, render(t, c, SVG, "capacity_sweep"))
	hasTexts(t, doc, "pool capacity (log scale)", "hit rate (prompt tokens)", "blocks", SeriesHitRate, SeriesHoles, SeriesStranded, SeriesIdeal, "8MiB", "1GiB")
	for i := range 3 {
		// One glyph per run and one in the legend.
		if got, want := count(doc.fills, svgColor(seriesColor(i))), len(sweep.Runs)+1; got != want {
			t.Errorf("series %d: %d points drawn, want %d", i, got, want)
		}
	}
	checkPNG(t, c, render(t, c, PNG, "capacity_sweep"))
}

func TestCapacitySweepNoRuns(t *testing.T) {
	if _, err := CapacitySweep(nil, nil); err == nil {
		t.Error("CapacitySweep(nil) = nil error, want one")
	}
}

func TestCapacitySweepNoHoles(t *testing.T) {
	runs := []holes.Run{{CapacityBytes: 1 << 20}, {CapacityBytes: 1 << 30}}
	for i := range runs {
		runs[i].Summary.Requests, runs[i].Summary.PromptTokens, runs[i].Summary.HitTokens = 10, 1000, 400
	}
	c, err := CapacitySweep(runs, nil)
	if err != nil {
		t.Fatalf("CapacitySweep(no holes) = %v", err)
	}
	if y := c.panels[1].Y; y.Min != 0 || y.Max != 1 {
		t.Errorf("CapacitySweep(no holes): blocks axis %v..%v, want 0..1", y.Min, y.Max)
	}
	doc := parseSVG(t, render(t, c, SVG, "capacity_sweep_no_holes"))
	for _, s := range doc.texts {
		if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "−") {
			t.Errorf("CapacitySweep(no holes) labels a tick %q, want no negative ticks", s)
		}
	}
	hasTexts(t, doc, "blocks", "0", "1")
}
