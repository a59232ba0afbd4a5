package transfer

import (
	"errors"
	"fmt"
)

// LayerGroup is the page shape of one layer group: the size in bytes of
// each region of a page, in the order the regions are concatenated in the
// page's pool value.
type LayerGroup struct {
	RegionBytes []int64 `json:"region_bytes"`
}

// PageBytes is the page's size: the sum of its regions.
func (g LayerGroup) PageBytes() int64 {
	var n int64
	for _, r := range g.RegionBytes {
		n += r
	}
	return n
}

// validate checks the group has regions of positive size.
func (g LayerGroup) validate() error {
	if len(g.RegionBytes) == 0 {
		return errors.New("no regions")
	}
	for i, r := range g.RegionBytes {
		if r <= 0 {
			return fmt.Errorf("region %d has %d bytes, want a positive size", i, r)
		}
	}
	return nil
}

// Layout is the page shape of every layer group.
type Layout struct {
	Groups []LayerGroup `json:"groups"`
}

// UniformLayout is groups layer groups of regions equal regions each,
// pageBytes per page; pageBytes must be a multiple of regions.
func UniformLayout(groups, regions int, pageBytes int64) (Layout, error) {
	if groups <= 0 || regions <= 0 || pageBytes <= 0 {
		return Layout{}, fmt.Errorf("uniform layout of %d groups, %d regions, %d bytes per page: want positive numbers", groups, regions, pageBytes)
	}
	if pageBytes%int64(regions) != 0 {
		return Layout{}, fmt.Errorf("uniform layout: %d bytes per page do not split into %d equal regions", pageBytes, regions)
	}
	l := Layout{Groups: make([]LayerGroup, groups)}
	for g := range l.Groups {
		rb := make([]int64, regions)
		for r := range rb {
			rb[r] = pageBytes / int64(regions)
		}
		l.Groups[g] = LayerGroup{RegionBytes: rb}
	}
	return l, nil
}

// Validate checks the layout has groups, each with regions of positive
// size.
func (l Layout) Validate() error {
	if len(l.Groups) == 0 {
		return errors.New("layout has no layer groups")
	}
	for i, g := range l.Groups {
		if err := g.validate(); err != nil {
			return fmt.Errorf("layer group %d: %w", i, err)
		}
	}
	return nil
}

// MaxPageBytes is the largest page of any group: the staging slot size.
func (l Layout) MaxPageBytes() int64 {
	var m int64
	for _, g := range l.Groups {
		m = max(m, g.PageBytes())
	}
	return m
}
