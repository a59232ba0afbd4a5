package chart

import (
	"testing"

	"github.com/kvctl/kvctl/stats"
)

func TestServe(t *testing.T) {
	samples := []stats.TimelineSample{
		{AtMS: 1000, HitRate: 0.1, PoolUsedBytes: 10, PoolCapacityBytes: 100},
		{AtMS: 2000, HitRate: 0.3, PoolUsedBytes: 30, PoolCapacityBytes: 100},
		{AtMS: 3000, HitRate: 0.2, PoolUsedBytes: 50, PoolCapacityBytes: 100},
	}
	lat := []Distribution{{Name: "TTFT", Quantiles: []Quantile{{0.5, 10}, {0.9, 20}, {0.99, 30}}}}
	phases := Bar{Label: "load", Parts: []Part{{"get", 3}, {"sync", 1}}}
	tests := []struct {
		name    string
		samples []stats.TimelineSample
		phases  Bar
		texts   []string
		panels  int
	}{
		{"all", samples, phases, []string{"Pool over the replay", "modelled seconds", SeriesIntervalHitRate, SeriesOccupancy, "TTFT and ITL", "Pool loads: where the time went", "get"}, 3},
		{"no samples, no loads", nil, Bar{}, []string{"TTFT and ITL"}, 1},
	}
	for _, tt := range tests {
		c, err := Serve(tt.samples, lat, tt.phases)
		if err != nil {
			t.Fatalf("Serve(%s) = %v", tt.name, err)
		}
		if len(c.panels) != tt.panels {
			t.Errorf("Serve(%s) has %d panels, want %d", tt.name, len(c.panels), tt.panels)
		}
		doc := parseSVG(t, render(t, c, SVG, "serve_"+tt.name))
		hasTexts(t, doc, tt.texts...)
		checkPNG(t, c, render(t, c, PNG, "serve_"+tt.name))
	}
	// The timeline's two series: three glyphs each and one in the legend.
	// (Without load phases, whose bars take the series' colours too.)
	c, _ := Serve(samples, lat, Bar{})
	doc := parseSVG(t, render(t, c, SVG, "serve"))
	if got, want := count(doc.fills, svgColor(seriesColor(1))), 3+1; got != want {
		t.Errorf("occupancy: %d points drawn, want %d", got, want)
	}
}
