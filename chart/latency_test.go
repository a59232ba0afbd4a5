package chart

import "testing"

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
