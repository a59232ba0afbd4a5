package chart

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/stats"
)

func TestLatencyCDF(t *testing.T) {
	ttft := Distribution{Name: "TTFT", Quantiles: []Quantile{{0.5, 12}, {0.9, 40}, {0.99, 130}}}
	itl := Distribution{Name: "ITL", Quantiles: []Quantile{{0.5, 0.8}, {0.9, 1.1}, {0.99, 0}}}
	c, err := LatencyCDF("Latency", ttft, itl)
	if err != nil {
		t.Fatalf("LatencyCDF() = %v", err)
	}
	doc := parseSVG(t, render(t, c, SVG, "latency_cdf"))
	hasTexts(t, doc, "Latency", "milliseconds (modelled, log scale)", "share of samples at most", "TTFT", "ITL")
	// A quantile of 0 ms has no place on a log scale: ITL draws two.
	for i, want := range []int{3 + 1, 2 + 1} {
		if got := count(doc.fills, svgColor(seriesColor(i))); got != want {
			t.Errorf("series %d: %d points drawn, want %d", i, got, want)
		}
	}
	checkPNG(t, c, render(t, c, PNG, "latency_cdf"))
	if _, err := LatencyCDF("empty", Distribution{Name: "x"}); err == nil {
		t.Error(`LatencyCDF("empty", no quantiles) = nil error, want one`)
	}
}

func TestPhases(t *testing.T) {
	load := Bar{Label: "load", Parts: []Part{{"get", 5}, {"unstage", 3}, {"sync", 1}}}
	other := Bar{Label: "load 2", Parts: []Part{{"get", 4}, {"unstage", 2}, {"sync", 2}}}
	c, err := Phases("Load phases", load, other)
	if err != nil {
		t.Fatalf("Phases() = %v", err)
	}
	doc := parseSVG(t, render(t, c, SVG, "phases"))
	hasTexts(t, doc, "Load phases", "milliseconds (sum over calls)", "get", "unstage", "sync", "load 2")
	for i := range 3 {
		// A rectangle per bar and the legend's swatch.
		if got, want := count(doc.fills, svgColor(seriesColor(i))), 2+1; got != want {
			t.Errorf("phase %d: %d rectangles, want %d", i, got, want)
		}
	}
	checkPNG(t, c, render(t, c, PNG, "phases"))
	bad := Bar{Label: "save", Parts: []Part{{"put", 1}}}
	if _, err := Phases("mixed", load, bad); err == nil {
		t.Error("Phases(bars of other phases) = nil error, want one")
	}
}

func TestHistogramCDF(t *testing.T) {
	h := stats.NewLatencyHistogram([]float64{1, 1, 1.1, 10})
	got := HistogramCDF("TTFT", h)
	want := Distribution{Name: "TTFT", Quantiles: []Quantile{
		{P: 0, MS: h.LowerMS(0)}, {P: 0.5, MS: h.UpperMS(0)},
		{P: 0.5, MS: h.LowerMS(4)}, {P: 0.75, MS: h.UpperMS(4)},
		{P: 0.75, MS: h.LowerMS(100)}, {P: 1, MS: h.UpperMS(100)},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("HistogramCDF() mismatch (-want +got):\n%s", diff)
	}
	for _, q := range got.Quantiles[1:] {
		if q.MS < 1 || q.MS > 10*1.024 {
			t.Errorf("HistogramCDF() has a point at %v ms, want 1 to 10.24", q.MS)
		}
	}
	if got := HistogramCDF("none", &stats.LatencyHistogram{}); len(got.Quantiles) != 0 {
		t.Errorf("HistogramCDF(empty) = %v, want no quantiles", got.Quantiles)
	}
	c, err := LatencyCDF("Latency", got)
	if err != nil {
		t.Fatalf("LatencyCDF(HistogramCDF()) = %v", err)
	}
	doc := parseSVG(t, render(t, c, SVG, "histogram_cdf"))
	if got, want := count(doc.fills, svgColor(seriesColor(0))), len(want.Quantiles)+1; got != want {
		t.Errorf("LatencyCDF(HistogramCDF()): %d points drawn, want %d", got, want)
	}
}
