package report

import (
	"errors"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/chart"
	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/transfer"
)

// section is one input's part of the page.
type section struct {
	Input   Input
	Figures []template.HTML
	Tables  []table
}

// table is a titled table of text cells.
type table struct {
	Title   string
	Headers []string
	Rows    [][]string
}

// addRow adds a row of cells printed with %v.
func (t *table) addRow(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	t.Rows = append(t.Rows, row)
}

// Charts are the figures a report draws of in.
func (in Input) Charts() ([]*chart.Chart, error) {
	s := section{Input: in}
	return s.draw()
}

// draw makes s's tables and returns its figures.
func (s *section) draw() ([]*chart.Chart, error) {
	var charts []*chart.Chart
	var err error
	switch in := s.Input; in.Kind {
	case HolesProbe:
		charts, err = s.holesProbe(in.probe)
	case HolesSimulation:
		charts, err = s.holesSimulation(in.sim)
	case HolesSweep:
		charts, err = s.holesSweep(in.sweep)
	case BenchRuns:
		charts, err = s.bench(in.bench)
	case Serve:
		charts, err = s.serveReport(in.serve)
	case ServeSweep:
		charts, err = s.serveSweep(in.pools)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Input.Name, err)
	}
	return charts, nil
}

// newSection draws in's figures and tables.
func newSection(in Input) (section, error) {
	s := section{Input: in}
	charts, err := s.draw()
	if err != nil {
		return s, err
	}
	for _, c := range charts {
		var b strings.Builder
		if err := c.InlineSVG(&b); err != nil {
			return s, fmt.Errorf("%s: %w", in.Name, err)
		}
		s.Figures = append(s.Figures, template.HTML(b.String())) // #nosec G203: SVG from package chart, its text escaped
	}
	return s, nil
}

func (s *section) holesProbe(rep *holes.Report) ([]*chart.Chart, error) {
	s.Tables = append(s.Tables, summaryTable("probe "+rep.Probe+" of "+rep.Pool, rep.Summary))
	if len(rep.Requests) == 0 {
		return nil, nil
	}
	c, err := chart.HoleMap(rep.Requests)
	return []*chart.Chart{c}, err
}

func (s *section) holesSimulation(run *holes.Run) ([]*chart.Chart, error) {
	s.Tables = append(s.Tables, runsTable([]holes.Run{*run}))
	if len(run.Requests) == 0 {
		return nil, nil
	}
	c, err := chart.HoleMap(run.Requests)
	return []*chart.Chart{c}, err
}

func (s *section) holesSweep(sw *holesSweep) ([]*chart.Chart, error) {
	t := runsTable(sw.Runs)
	if sw.IdealReuse != nil {
		t.Title += fmt.Sprintf("; the trace's ideal reuse: %.1f%%", 100**sw.IdealReuse)
	}
	s.Tables = append(s.Tables, t)
	if len(sw.Runs) == 0 {
		return nil, nil
	}
	c, err := chart.CapacitySweep(sw.Runs, sw.IdealReuse)
	return []*chart.Chart{c}, err
}

// summaryTable is a hole summary, a row per count.
func summaryTable(title string, h stats.Holes) table {
	t := table{Title: title, Headers: []string{"", "value"}}
	t.addRow("requests", h.Requests)
	t.addRow("blocks", h.Blocks)
	t.addRow("hit blocks", h.HitBlocks)
	t.addRow("hit rate (prompt tokens)", percent(h.HitRate()))
	t.addRow("holes", h.Holes)
	t.addRow("blocks in holes", h.HoleBlocks)
	t.addRow("blocks stranded behind a hole", h.BehindHoleBlocks)
	t.addRow("recomputed tokens", h.RecomputedTokens)
	return t
}

// runsTable is simulated capacities, a row each.
func runsTable(runs []holes.Run) table {
	t := table{Title: "simulated capacities", Headers: []string{"capacity", "requests", "blocks", "hit rate",
		"holes", "hole blocks", "behind hole", "evicted keys", "failed puts"}}
	for _, r := range runs {
		h := r.Summary
		t.addRow(size.Human(r.CapacityBytes), h.Requests, h.Blocks, percent(h.HitRate()), h.Holes, h.HoleBlocks,
			h.BehindHoleBlocks, r.Pool.EvictedKeys, r.FailedPuts)
	}
	return t
}

func (s *section) bench(runs []transfer.BenchResult) ([]*chart.Chart, error) {
	t := table{Title: "runs", Headers: []string{"dir", "copy", "direct", "async", "page", "regions", "pages",
		"GB/s", "baseline GB/s", "ratio", "verify"}}
	for _, r := range runs {
		t.addRow(r.Direction, r.Mode, r.Direct, r.Async, size.Human(r.PageBytes), r.RegionsPerPage, r.Pages,
			fixed(r.GBps), fixed(r.BaselineGBps), fixed(r.Ratio), r.Verify)
	}
	s.Tables = append(s.Tables, t)
	if len(runs) > 1 {
		c, err := chart.BenchSweep(runs)
		return []*chart.Chart{c}, err
	}
	bar := chart.Bar{Label: string(runs[0].Direction)}
	for _, p := range runs[0].Direction.Phases() {
		if ms, ok := runs[0].PhaseMS[p.String()]; ok {
			bar.Parts = append(bar.Parts, chart.Part{Name: p.String(), MS: ms})
		}
	}
	if len(bar.Parts) == 0 {
		return nil, nil
	}
	c, err := chart.Phases("bench "+string(runs[0].Direction)+": where the time went", bar)
	return []*chart.Chart{c}, err
}

func (s *section) serveReport(r *serveReport) ([]*chart.Chart, error) {
	t := table{Title: "replay", Headers: []string{"", "value"}}
	t.addRow("requests", fmt.Sprintf("%d (%d completed, %d failed)", r.Requests, r.Completed, r.Failed))
	t.addRow("prompt tokens", r.PromptTokens)
	t.addRow("hit rate (local and pool)", percent(r.HitRate))
	t.addRow("local / pool hit tokens", fmt.Sprintf("%d / %d", r.LocalHitTokens, r.PoolHitTokens))
	t.addRow("loaded / saved pages", fmt.Sprintf("%d / %d", r.LoadedPages, r.SavedPages))
	t.addRow("restarts", r.Restarts)
	t.addRow("verify mismatches", r.VerifyMismatches)
	t.addRow("TTFT ms p50 / p90 / p99", fmt.Sprintf("%.1f / %.1f / %.1f", r.TTFTMS.P50, r.TTFTMS.P90, r.TTFTMS.P99))
	t.addRow("ITL ms p50 / p90 / p99", fmt.Sprintf("%.2f / %.2f / %.2f", r.ITLMS.P50, r.ITLMS.P90, r.ITLMS.P99))
	t.addRow("prefix holes", fmt.Sprintf("%d holes, %d blocks behind a hole", r.PrefixHoles.Holes, r.PrefixHoles.BehindHoleBlocks))
	t.addRow("wall seconds", fixed(r.WallSeconds))
	if n := len(r.Timeline); n > 0 {
		t.addRow("timeline samples", fmt.Sprintf("%d, to %.1f modelled s", n, r.Timeline[n-1].AtMS/1000))
	}
	s.Tables = append(s.Tables, t)
	c, err := serveChart(r.Series, r.TTFTMS, r.ITLMS, r.loadPhases())
	if errors.Is(err, chart.ErrNothingToDraw) {
		return nil, nil
	}
	return []*chart.Chart{c}, err
}

func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

func fixed(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
