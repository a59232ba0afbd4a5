package connector

import "github.com/kvctl/kvctl/keys"

// PageSlot is one page of a block as one rank holds it: a sharded layer
// group's shard for that rank, or a replicated layer group.
type PageSlot struct {
	LayerGroup keys.LayerGroup
	Shard      keys.Shard
	// Bytes is the page size, LayerGroup.BytesPerPage.
	Bytes int64
}

// Rank is the rank whose shard the slot holds, or -1 for a replicated
// page (identical on every rank).
func (s PageSlot) Rank() int {
	if s.Shard.Replicated {
		return -1
	}
	return s.Shard.Rank
}

// PageSlots lists the pages one block has on rank: one per sharded layer
// group (shard w{World}r{rank}), then one per replicated layer group, in
// the layout's order.
func PageSlots(l keys.Layout, rank int) []PageSlot {
	out := make([]PageSlot, 0, len(l.LayerGroups)+len(l.Replicated))
	for _, lg := range l.LayerGroups {
		out = append(out, PageSlot{LayerGroup: lg, Shard: keys.Shard{World: l.World, Rank: rank}, Bytes: lg.BytesPerPage})
	}
	for _, lg := range l.Replicated {
		out = append(out, PageSlot{LayerGroup: lg, Shard: keys.Shard{Replicated: true}, Bytes: lg.BytesPerPage})
	}
	return out
}

// maxPageBytes is the largest page of slots.
func maxPageBytes(slots []PageSlot) int64 {
	var n int64
	for _, s := range slots {
		n = max(n, s.Bytes)
	}
	return n
}
