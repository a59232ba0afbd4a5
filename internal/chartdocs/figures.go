package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kvctl/kvctl/chart"
	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/stats"
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
	var samples []chart.Sample
	for name, v := range map[string]any{"holes_sweep.json": &sweep, "bench_sweep.json": &bench,
		"holes_probe.json": &probe, "serve_timeline.json": &samples} {
		if err := readJSON(filepath.Join(dir, name), v); err != nil {
			return nil, err
		}
	}
	rep, err := readServe(filepath.Join(dir, "serve.json"))
	if err != nil {
		return nil, err
	}
	return []figure{
		{"chart-capacity-sweep.png", func() (*chart.Chart, error) { return chart.CapacitySweep(sweep.Runs, sweep.IdealReuse) }},
		{"chart-bench-sweep.png", func() (*chart.Chart, error) { return chart.BenchSweep(bench.Runs) }},
		{"chart-hole-map.png", func() (*chart.Chart, error) { return chart.HoleMap(probe.Requests) }},
		{"chart-serve.png", func() (*chart.Chart, error) { return chart.Serve(samples, rep.latencies(), rep.phases()) }},
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

// serveJSON is what the serve figure reads of serve's JSON.
type serveJSON struct {
	TTFT percentiles `json:"ttft_ms"`
	ITL  percentiles `json:"itl_ms"`
	Load struct {
		Phases map[string]struct {
			WallMS float64 `json:"wall_ms"`
		} `json:"phases"`
	} `json:"load"`
}

type percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

func readServe(path string) (serveJSON, error) {
	var s serveJSON
	return s, readJSON(path, &s)
}

func (s serveJSON) latencies() []chart.Distribution {
	d := func(name string, p percentiles) chart.Distribution {
		return chart.Distribution{Name: name, Quantiles: []chart.Quantile{{P: 0.5, MS: p.P50}, {P: 0.9, MS: p.P90}, {P: 0.99, MS: p.P99}}}
	}
	return []chart.Distribution{d("TTFT", s.TTFT), d("ITL", s.ITL)}
}

func (s serveJSON) phases() chart.Bar {
	bar := chart.Bar{Label: "load"}
	for _, p := range stats.LoadPhases {
		if ph, ok := s.Load.Phases[p.String()]; ok {
			bar.Parts = append(bar.Parts, chart.Part{Name: p.String(), MS: ph.WallMS})
		}
	}
	return bar
}
