package chart

import (
	"testing"

	"github.com/kvctl/kvctl/transfer"
)

func TestBenchSweep(t *testing.T) {
	var sweep struct {
		Runs []transfer.BenchResult `json:"runs"`
	}
	readFixture(t, "bench_sweep.json", &sweep)
	c, err := BenchSweep(sweep.Runs)
	if err != nil {
		t.Fatalf("BenchSweep() = %v", err)
	}
	doc := parseSVG(t, render(t, c, SVG, "bench_sweep"))
	hasTexts(t, doc, "page size (log scale)", "GB/s (ratio to baseline)", SeriesBaseline,
		"memcpy, staged", "kernel, staged", "4KiB", "256KiB", "x)")
	// Two series (memcpy, kernel) of four page sizes, and a legend glyph each.
	for i := range 2 {
		if got, want := count(doc.fills, svgColor(seriesColor(i))), 4+1; got != want {
			t.Errorf("series %d: %d points drawn, want %d", i, got, want)
		}
	}
	checkPNG(t, c, render(t, c, PNG, "bench_sweep"))
}

func TestSeriesNames(t *testing.T) {
	runs := []transfer.BenchResult{
		{Mode: "kernel", Direct: true, Parallel: 1, RegionsPerPage: 2},
		{Mode: "kernel", Async: true, Workers: 4, Parallel: 2, RegionsPerPage: 2},
		{Mode: "memcpy", Parallel: 2, RegionsPerPage: 2},
	}
	name := seriesNamer(runs)
	want := []string{"kernel, direct, 1 threads", "kernel, async x4, 2 threads", "memcpy, staged, 2 threads"}
	for i, r := range runs {
		if got := name(r); got != want[i] {
			t.Errorf("seriesNamer(runs)(runs[%d]) = %q, want %q", i, got, want[i])
		}
	}
}
