package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/workload"
)

// printHolesProbe prints a probe's report as JSON or a table.
func printHolesProbe(ios *IOStreams, g *globalOptions, rep holes.Report) error {
	if g.Output == "json" {
		return writeHeadedJSON(ios.Out, "holes", rep)
	}
	return printHolesReport(ios, rep)
}

func printHolesReport(ios *IOStreams, rep holes.Report) error {
	tp := newTablePrinter(ios, "id", "blocks", "hit", "holes", "hole blocks", "behind hole", "recomputed", "map")
	width := mapWidth(ios)
	for _, r := range rep.Requests {
		tp.addRow(r.ID, r.Blocks, r.HitBlocks, r.Holes, r.HoleBlocks, r.BehindHoleBlocks, r.RecomputedTokens, compressMap(r.Map, width))
	}
	tp.styleCell = func(rd *lipgloss.Renderer, _, col int, s string) string {
		if col == 7 {
			return styleMap(rd, s)
		}
		return s
	}
	if err := tp.render(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(ios.Out, "probe %s of %s: %s\n", rep.Probe, rep.Pool, summaryLine(rep.Summary))
	return err
}

func summaryLine(h stats.Holes) string {
	return fmt.Sprintf("%d requests, %d blocks, %d hit (hit rate %.1f%%), %d holes of %d blocks, %d blocks stored behind a hole (%d tokens recomputed)",
		h.Requests, h.Blocks, h.HitBlocks, 100*h.HitRate(), h.Holes, h.HoleBlocks, h.BehindHoleBlocks, h.RecomputedTokens)
}

// mapWidth is the room for a block map: unlimited when piped, else what the
// terminal leaves after the counts.
func mapWidth(ios *IOStreams) int {
	if !ios.OutTTY {
		return 0
	}
	return max(20, ios.TerminalWidth()-70)
}

// compressMap run-length compresses a map longer than width: runs of more
// than three blocks become "#×12". width 0 means no limit.
func compressMap(m string, width int) string {
	if width == 0 || len(m) <= width {
		return m
	}
	var b strings.Builder
	for i := 0; i < len(m); {
		j := i
		for j < len(m) && m[j] == m[i] {
			j++
		}
		if n := j - i; n > 3 {
			fmt.Fprintf(&b, "%c×%d", m[i], n)
		} else {
			b.WriteString(m[i:j])
		}
		i = j
	}
	return b.String()
}

// styleMap colours a (possibly compressed) map: present blocks green,
// missing blocks inside holes red, missing blocks at the tail faint.
func styleMap(rd *lipgloss.Renderer, m string) string {
	present := rd.NewStyle().Foreground(lipgloss.Color("2"))
	hole := rd.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
	tail := rd.NewStyle().Faint(true)
	lastPresent := strings.LastIndexByte(m, '#')
	var b strings.Builder
	for i, r := range m {
		s := string(r)
		switch {
		case r == '#':
			b.WriteString(present.Render(s))
		case r == '.' && i < lastPresent:
			b.WriteString(hole.Render(s))
		case r == '.':
			b.WriteString(tail.Render(s))
		default:
			b.WriteString(s)
		}
	}
	return b.String()
}

func printSimulation(ios *IOStreams, g *globalOptions, sweep bool, runs []holes.Run, ideal *workload.Reuse) error {
	if g.Output == "json" && sweep {
		out := struct {
			Runs       []holes.Run `json:"runs"`
			IdealReuse *float64    `json:"ideal_reuse,omitempty"`
		}{Runs: runs}
		if ideal != nil {
			out.IdealReuse = &ideal.Fraction
		}
		return writeHeadedJSON(ios.Out, "holes", out)
	}
	if g.Output == "json" {
		return writeHeadedJSON(ios.Out, "holes", runs[0])
	}
	tp := newTablePrinter(ios, "capacity", "requests", "blocks", "hit rate", "holes", "hole blocks", "behind hole", "recomputed", "evicted", "failed puts", "holes after")
	for _, r := range runs {
		h := r.Summary
		tp.addRow(size.Human(r.CapacityBytes), h.Requests, h.Blocks, fmt.Sprintf("%.1f%%", 100*h.HitRate()),
			h.Holes, h.HoleBlocks, h.BehindHoleBlocks, h.RecomputedTokens, r.Pool.EvictedKeys, r.FailedPuts, holesAfter(r))
	}
	if err := tp.render(); err != nil {
		return err
	}
	if sweep {
		return printSweepChart(ios, runs)
	}
	return nil
}

// holesAfter is the holes a probe of the pool the run left finds, "-" for
// an interrupted run, which has no such probe.
func holesAfter(r holes.Run) string {
	if r.After == nil {
		return "-"
	}
	return strconv.FormatInt(r.After.Holes, 10)
}

// printSweepChart draws hit rate and stranded blocks (stored behind a hole,
// as a share of all blocks) against capacity as horizontal bars.
func printSweepChart(ios *IOStreams, runs []holes.Run) error {
	rd := ios.OutRenderer()
	hitStyle := rd.NewStyle().Foreground(lipgloss.Color("2"))
	holeStyle := rd.NewStyle().Foreground(lipgloss.Color("1"))
	const width = 40
	var b strings.Builder
	b.WriteString("\nhit rate (█) and blocks stranded behind holes (▒) by capacity\n")
	for _, r := range runs {
		hit := r.Summary.HitRate()
		stranded := 0.0
		if r.Summary.Blocks > 0 {
			stranded = float64(r.Summary.BehindHoleBlocks) / float64(r.Summary.Blocks)
		}
		fmt.Fprintf(&b, "%10s │%s %5.1f%%\n", size.Human(r.CapacityBytes), hitStyle.Render(bar(hit, width, "█")), 100*hit)
		fmt.Fprintf(&b, "%10s │%s %5.1f%%\n", "", holeStyle.Render(bar(stranded, width, "▒")), 100*stranded)
	}
	_, err := fmt.Fprint(ios.Out, b.String())
	return err
}

func bar(frac float64, width int, cell string) string {
	n := int(frac*float64(width) + 0.5)
	n = max(0, min(width, n))
	return strings.Repeat(cell, n) + strings.Repeat(" ", width-n)
}
