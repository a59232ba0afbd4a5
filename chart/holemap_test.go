package chart

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/stats"
)

func TestStates(t *testing.T) {
	tests := []struct {
		m    string
		want []BlockState
	}{
		{"", []BlockState{}},
		{"###", []BlockState{Hit, Hit, Hit}},
		{"...", []BlockState{Miss, Miss, Miss}},
		{"##.#..", []BlockState{Hit, Hit, Hole, Stranded, Miss, Miss}},
		{".#.#", []BlockState{Hole, Stranded, Hole, Stranded}},
	}
	for _, tt := range tests {
		if got := States(tt.m); !cmp.Equal(got, tt.want) {
			t.Errorf("States(%q) = %v, want %v", tt.m, got, tt.want)
		}
	}
}

func TestHoleMapSmall(t *testing.T) {
	reqs := []stats.RequestHoles{{ID: "a", Map: "##.#.."}, {ID: "b", Map: "####"}, {ID: "c", Map: ".#"}}
	c, err := HoleMap(reqs)
	if err != nil {
		t.Fatalf("HoleMap() = %v", err)
	}
	doc := parseSVG(t, render(t, c, SVG, "hole_map_small"))
	hasTexts(t, doc, "Hole map of 3 requests", "one cell per block", "block", "request, in order", "hit", "hole", "stranded (behind a hole)", "miss (tail)")
	// Runs of one state in a row are one rectangle, and each state has a
	// legend swatch: hit a:1 b:1, hole a:1 c:1, stranded a:1 c:1, miss a:1.
	for s, want := range map[BlockState]int{Hit: 2 + 1, Hole: 2 + 1, Stranded: 2 + 1, Miss: 1 + 1} {
		if got := count(doc.fills, svgColor(stateColors[s])); got != want {
			t.Errorf("%v: %d rectangles, want %d", s, got, want)
		}
	}
}

func TestHoleMapBinned(t *testing.T) {
	var rep holes.Report
	readFixture(t, "holes_probe.json", &rep)
	c, err := HoleMap(rep.Requests)
	if err != nil {
		t.Fatalf("HoleMap() = %v", err)
	}
	doc := parseSVG(t, render(t, c, SVG, "hole_map"))
	hasTexts(t, doc, fmt.Sprintf("Hole map of %d requests", len(rep.Requests)), "binned: 3 requests x 1 block per cell, holes shown first",
		"request, in order (3 per cell)")
	checkPNG(t, c, render(t, c, PNG, "hole_map"))
}

func TestBinning(t *testing.T) {
	tests := []struct {
		requests, blocks int
		want             Binning
		rows, cols       int
	}{
		{3, 10, Binning{1, 1}, 3, 10},
		{MaxMapRows, MaxMapCols, Binning{1, 1}, MaxMapRows, MaxMapCols},
		{MaxMapRows + 1, MaxMapCols + 1, Binning{2, 2}, MaxMapRows/2 + 1, MaxMapCols/2 + 1},
		{1000, 5000, Binning{9, 32}, 112, 157},
	}
	for _, tt := range tests {
		reqs := make([]stats.RequestHoles, tt.requests)
		reqs[0].Map = strings.Repeat("#", tt.blocks)
		grid, bin := binnedGrid(reqs)
		if bin != tt.want || len(grid) != tt.rows || len(grid[0]) != tt.cols {
			t.Errorf("binnedGrid(%d requests, %d blocks) = %d x %d cells, %+v; want %d x %d, %+v",
				tt.requests, tt.blocks, len(grid), len(grid[0]), bin, tt.rows, tt.cols, tt.want)
		}
	}
}

func TestCellState(t *testing.T) {
	tests := []struct {
		c    [5]int
		want BlockState
	}{
		{[5]int{}, NoBlock},
		{[5]int{NoBlock: 5, Miss: 1}, Miss},
		{[5]int{Hit: 3, Miss: 1}, Hit},
		{[5]int{Hit: 2, Miss: 2}, Miss},
		{[5]int{Hit: 30, Hole: 1}, Hole},
		{[5]int{Miss: 20, Stranded: 1, Hit: 1}, Stranded},
		{[5]int{Stranded: 9, Hole: 1}, Hole},
	}
	for _, tt := range tests {
		if got := cellState(tt.c); got != tt.want {
			t.Errorf("cellState(%v) = %v, want %v", tt.c, got, tt.want)
		}
	}
}
