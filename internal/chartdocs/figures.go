package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kvctl/kvctl/chart"
	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/report"
	"github.com/kvctl/kvctl/transfer"
)

// figure is one docs image and how to draw it.
type figure struct {
	file string
	draw func() (*chart.Chart, error)
}

// png draws the figure as PNG.
func (f figure) png() ([]byte, error) {
	c, err := f.draw()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.file, err)
	}
	var b bytes.Buffer
	if err := c.Render(&b, chart.PNG); err != nil {
		return nil, fmt.Errorf("%s: %w", f.file, err)
	}
	return b.Bytes(), nil
}

// figures are the docs images, each drawn from a fixture of dir.
func figures(dir string) ([]figure, error) {
	var sweep struct {
		Runs       []holes.Run `json:"runs"`
		IdealReuse *float64    `json:"ideal_reuse"`
	}
	var bench struct {
		Runs []transfer.BenchResult `json:"runs"`
	}
	var probe holes.Report
	for name, v := range map[string]any{"holes_sweep.json": &sweep, "bench_sweep.json": &bench, "holes_probe.json": &probe} {
		if err := readJSON(filepath.Join(dir, name), v); err != nil {
			return nil, err
		}
	}
	return []figure{
		{"chart-capacity-sweep.png", func() (*chart.Chart, error) { return chart.CapacitySweep(sweep.Runs, sweep.IdealReuse) }},
		{"chart-bench-sweep.png", func() (*chart.Chart, error) { return chart.BenchSweep(bench.Runs) }},
		{"chart-hole-map.png", func() (*chart.Chart, error) { return chart.HoleMap(probe.Requests) }},
		{"chart-serve.png", func() (*chart.Chart, error) { return reportChart(filepath.Join(dir, "serve.json")) }},
		{"chart-bench-phases.png", func() (*chart.Chart, error) { return reportChart(filepath.Join(dir, "bench_run.json")) }},
		{"chart-serve-sweep.png", func() (*chart.Chart, error) { return reportChart(filepath.Join(dir, "serve_sweep.json")) }},
	}, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decoding %s: %w", path, err)
	}
	return nil
}

// reportChart is the one figure a report draws of the output at path: of
// serve's, the same as serve --plot draws of the replay.
func reportChart(path string) (*chart.Chart, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	in, err := report.Read(path, b)
	if err != nil {
		return nil, err
	}
	charts, err := in.Charts()
	if err != nil {
		return nil, err
	}
	if len(charts) != 1 {
		return nil, fmt.Errorf("%s: %d figures, want one", path, len(charts))
	}
	return charts[0], nil
}
