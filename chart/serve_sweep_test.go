package chart

import (
	"testing"
)

func TestServeSweep(t *testing.T) {
	var sweep struct {
		Runs []struct {
			CapacityBytes int64   `json:"capacity_bytes"`
			HitRate       float64 `json:"hit_rate"`
			TTFTMS        struct {
				P50 float64 `json:"p50"`
				P99 float64 `json:"p99"`
			} `json:"ttft_ms"`
			EvictedKeys  int64 `json:"evicted_keys"`
			RecentMisses int64 `json:"recent_misses"`
			Bursts       []any `json:"bursts"`
		} `json:"runs"`
	}
	readFixture(t, "serve_sweep.json", &sweep)
	var runs []ServeSweepRun
	for _, r := range sweep.Runs {
		runs = append(runs, ServeSweepRun{CapacityBytes: r.CapacityBytes, HitRate: r.HitRate, TTFTP50MS: r.TTFTMS.P50,
			TTFTP99MS: r.TTFTMS.P99, EvictedKeys: r.EvictedKeys, RecentMisses: r.RecentMisses, Bursts: len(r.Bursts)})
	}
	c, err := ServeSweep(runs)
	if err != nil {
		t.Fatalf("ServeSweep() = %v", err)
	}
	if len(c.panels) != 4 {
		t.Errorf("ServeSweep() has %d panels, want 4", len(c.panels))
	}
	doc := parseSVG(t, render(t, c, SVG, "serve_sweep"))
	hasTexts(t, doc, "Serving against pool capacity", "pool capacity (log scale)", "hit rate (prompt tokens)", "TTFT (modelled s)",
		"keys", SeriesHitRate, SeriesTTFTP50, SeriesTTFTP99, SeriesEvicted, SeriesRecentMisses, SeriesBursts, "1TiB", "8TiB")
	for _, i := range []int{0, 1, 2, 3, 4, 5} {
		// One glyph per run and one in the legend.
		if got, want := count(doc.fills, svgColor(seriesColor(i))), len(runs)+1; got != want {
			t.Errorf("series %d: %d points drawn, want %d", i, got, want)
		}
	}
	checkPNG(t, c, render(t, c, PNG, "serve_sweep"))
}

// TestServeSweepBurstMarks rings on the TTFT p99 line the capacities with
// bursts, and names the mark in the legend.
func TestServeSweepBurstMarks(t *testing.T) {
	runs := []ServeSweepRun{
		{CapacityBytes: 1 << 30, HitRate: 0.1, TTFTP50MS: 50, TTFTP99MS: 900, EvictedKeys: 500, RecentMisses: 40},
		{CapacityBytes: 2 << 30, HitRate: 0.2, TTFTP50MS: 40, TTFTP99MS: 700, EvictedKeys: 300, RecentMisses: 20},
		{CapacityBytes: 4 << 30, HitRate: 0.3, TTFTP50MS: 30, TTFTP99MS: 200, EvictedKeys: 100},
		{CapacityBytes: 8 << 30, HitRate: 0.3, TTFTP50MS: 30, TTFTP99MS: 200},
	}
	rings := func(runs []ServeSweepRun, name string) (int, svgDoc) {
		c, err := ServeSweep(runs)
		if err != nil {
			t.Fatalf("ServeSweep(%s) = %v", name, err)
		}
		doc := parseSVG(t, render(t, c, SVG, name))
		return count(doc.strokes, svgColor(seriesColor(3))), doc
	}
	none, plain := rings(runs, "serve_sweep_no_bursts")
	runs[0].Bursts, runs[1].Bursts = 5, 1
	some, marked := rings(runs, "serve_sweep_bursts")
	// Two rings and one in the legend.
	if some-none != 3 {
		t.Errorf("ServeSweep(2 capacities with bursts) draws %d more crimson strokes than with none, want 3", some-none)
	}
	hasTexts(t, marked, SeriesBurstMark)
	for _, s := range plain.texts {
		if s == SeriesBurstMark {
			t.Errorf("ServeSweep(no bursts) names %q in its legend", SeriesBurstMark)
		}
	}
}

func TestServeSweepNoRuns(t *testing.T) {
	if _, err := ServeSweep(nil); err == nil {
		t.Error("ServeSweep(nil) = nil error, want one")
	}
}
