package keys

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// LayoutsOf returns the layouts whose page keys the parsed keys spell, the
// one most blocks show first. The pages of one block (one hash and T) make
// one layout: its ranks, layer groups and replicated groups; a block whose
// pages name one layer group with two page sizes, or two world sizes, was
// keyed under several layouts and makes one each. A layout that is part of
// another (a block some of whose pages were evicted, or cut off by a
// sample) is left out. Group keys are ignored.
func LayoutsOf(pages []ParsedKey) []Layout {
	type block struct {
		h Hash
		t int
	}
	byBlock := map[block][]ParsedKey{}
	var order []block
	for _, p := range pages {
		if p.Group {
			continue
		}
		b := block{p.Hash, p.TokensPerBlock}
		if _, ok := byBlock[b]; !ok {
			order = append(order, b)
		}
		byBlock[b] = append(byBlock[b], p)
	}
	count := map[string]int{}
	found := map[string]Layout{}
	for _, b := range order {
		for _, l := range blockLayouts(b.t, byBlock[b]) {
			s := l.String()
			count[s]++
			found[s] = l
		}
	}
	return maximalLayouts(found, count)
}

// blockLayouts returns the layouts of one block's pages.
func blockLayouts(t int, pages []ParsedKey) []Layout {
	worlds := map[int]bool{}
	var replicated []LayerGroup
	for _, p := range pages {
		if p.Shard.Replicated {
			replicated = appendUnique(replicated, p.LayerGroup)
		} else {
			worlds[p.Shard.World] = true
		}
	}
	if len(worlds) == 0 {
		return sizeVariants(Layout{TokensPerBlock: t, World: 1}, nil, replicated)
	}
	var out []Layout
	for _, w := range slices.Sorted(maps.Keys(worlds)) {
		l := Layout{TokensPerBlock: t, World: w}
		var sharded []LayerGroup
		for _, p := range pages {
			if !p.Shard.Replicated && p.Shard.World == w {
				sharded = appendUnique(sharded, p.LayerGroup)
				if !slices.Contains(l.Ranks, p.Shard.Rank) {
					l.Ranks = append(l.Ranks, p.Shard.Rank)
				}
			}
		}
		slices.Sort(l.Ranks)
		out = append(out, sizeVariants(l, sharded, replicated)...)
	}
	return out
}

// sizeVariants completes l with the layer groups: one layout, or one per
// page size where a layer group id comes with several sizes.
func sizeVariants(l Layout, sharded, replicated []LayerGroup) []Layout {
	sizes := map[int64]bool{}
	for _, lgs := range [][]LayerGroup{sharded, replicated} {
		for _, lg := range lgs {
			if countID(lgs, lg.ID) > 1 {
				sizes[lg.BytesPerPage] = true
			}
		}
	}
	if len(sizes) == 0 {
		l.LayerGroups, l.Replicated = sortedGroups(sharded), sortedGroups(replicated)
		return []Layout{l}
	}
	var out []Layout
	for _, size := range slices.Sorted(maps.Keys(sizes)) {
		v := l
		v.LayerGroups, v.Replicated = sortedGroups(pickSize(sharded, size)), sortedGroups(pickSize(replicated, size))
		out = append(out, v)
	}
	return out
}

// pickSize keeps the groups whose id has one size, and of the others those
// of the given size.
func pickSize(lgs []LayerGroup, size int64) []LayerGroup {
	var out []LayerGroup
	for _, lg := range lgs {
		if countID(lgs, lg.ID) == 1 || lg.BytesPerPage == size {
			out = append(out, lg)
		}
	}
	return out
}

func countID(lgs []LayerGroup, id int) int {
	n := 0
	for _, lg := range lgs {
		if lg.ID == id {
			n++
		}
	}
	return n
}

func appendUnique(lgs []LayerGroup, lg LayerGroup) []LayerGroup {
	if slices.Contains(lgs, lg) {
		return lgs
	}
	return append(lgs, lg)
}

func sortedGroups(lgs []LayerGroup) []LayerGroup {
	return slices.SortedFunc(slices.Values(lgs), func(a, b LayerGroup) int { return cmp.Compare(a.ID, b.ID) })
}

// maximalLayouts drops every layout that is part of another and sorts the
// rest by how many blocks showed them, then by spelling.
func maximalLayouts(found map[string]Layout, count map[string]int) []Layout {
	var out []Layout
	for s, l := range found {
		part := false
		for o, other := range found {
			part = part || (o != s && l.partOf(other))
		}
		if !part {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b Layout) int {
		return cmp.Or(cmp.Compare(count[b.String()], count[a.String()]), strings.Compare(a.String(), b.String()))
	})
	return out
}

// partOf says every page of l's blocks is a page of o's.
func (l Layout) partOf(o Layout) bool {
	if l.TokensPerBlock != o.TokensPerBlock || (len(l.LayerGroups) > 0 && l.World != o.World) {
		return false
	}
	subset := func(a, b []LayerGroup) bool {
		for _, x := range a {
			if !slices.Contains(b, x) {
				return false
			}
		}
		return true
	}
	for _, r := range l.Ranks {
		if !slices.Contains(o.Ranks, r) {
			return false
		}
	}
	return subset(l.LayerGroups, o.LayerGroups) && subset(l.Replicated, o.Replicated)
}

// String spells the layout for people: "t32 world 1 rank 0 layer group
// 0:4KiB", with "ranks 0,1", "layer groups" and "replicated" as they apply.
func (l Layout) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "t%d", l.TokensPerBlock)
	if len(l.LayerGroups) > 0 {
		ranks := make([]string, len(l.Ranks))
		for i, r := range l.Ranks {
			ranks[i] = strconv.Itoa(r)
		}
		fmt.Fprintf(&b, " world %d %s %s %s", l.World, plural("rank", len(ranks)), strings.Join(ranks, ","),
			plural("layer group", len(l.LayerGroups)))
		writeGroups(&b, l.LayerGroups)
	}
	if len(l.Replicated) > 0 {
		b.WriteString(" replicated")
		writeGroups(&b, l.Replicated)
	}
	return b.String()
}

func writeGroups(b *strings.Builder, lgs []LayerGroup) {
	for i, lg := range lgs {
		sep := ","
		if i == 0 {
			sep = " "
		}
		b.WriteString(sep + lg.String())
	}
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// PageSegments spells, for each page of a block in Namespace.AppendBlockKeys
// order, the key segments the layout decides: "w1r0/lg0/t32b4096".
func (l Layout) PageSegments() []string {
	var out []string
	spell := Namespace{Name: "", ModelKey: "-"}.BlockKeys(l)
	for _, p := range spell.prefixes {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(p, "/-/"), "/"))
	}
	return out
}
