package engine

import (
	"fmt"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/internal/hugepages"
	"github.com/kvctl/kvctl/keys"
)

// pageMemory is the emulated GPU KV cache: for every page slot of the
// layout (each layer group's shard on this rank, then each replicated
// layer group), one page per KV block. It also records which chain hash
// each block's pages hold, so that a save of a page whose KV was never
// computed (or loaded) is caught instead of published.
type pageMemory struct {
	slots  []connector.PageSlot
	blocks int
	mem    [][]byte // per slot: blocks pages of slots[i].Bytes
	holds  []keys.Hash
	valid  []bool
}

// newPageMemory makes the pages of blocks blocks for each slot. Each
// slot's memory is advised onto transparent huge pages
// (hugepages.Advise): blocks are taken lowest first (kvCache), so the
// pages in use lie together at the start and are written whole by the
// model, and 2 MiB at a time is mapped, and registered with a GPU, in far
// fewer steps than 4 KiB pages: serve with 64 KiB pages on host emulation
// took a quarter of the page faults (docs/benchmarks.md, "The model's
// pages on huge pages"), at the same memory.
func newPageMemory(slots []connector.PageSlot, blocks int) (*pageMemory, error) {
	if blocks <= 0 {
		return nil, fmt.Errorf("gpu blocks must be positive, got %d", blocks)
	}
	p := &pageMemory{slots: slots, blocks: blocks, holds: make([]keys.Hash, blocks), valid: make([]bool, blocks)}
	for _, s := range slots {
		mem := make([]byte, int64(blocks)*s.Bytes)
		hugepages.Advise(mem)
		p.mem = append(p.mem, mem)
	}
	return p, nil
}

// buffers is the page memory as the device mover takes it: each slot's
// pages end to end.
func (p *pageMemory) buffers() []connector.PageBuffer {
	out := make([]connector.PageBuffer, len(p.mem))
	for i, m := range p.mem {
		out[i] = connector.PageBuffer{Mem: m, PageBytes: p.slots[i].Bytes}
	}
	return out
}

// Page returns page slot slot of KV block block.
func (p *pageMemory) Page(slot int, block int32) []byte {
	n := p.slots[slot].Bytes
	off := int64(block) * n
	return p.mem[slot][off : off+n : off+n]
}

// Holds reports the chain hash whose KV block block holds; ok is false
// when its pages hold nothing computed or loaded.
func (p *pageMemory) Holds(block int32) (h keys.Hash, ok bool) {
	return p.holds[block], p.valid[block]
}

// fill computes every page of block with the model's KV for hash h.
func (p *pageMemory) fill(m Model, block int32, h keys.Hash) {
	for i, s := range p.slots {
		m.Fill(p.Page(i, block), h, s.LayerGroup.ID, s.Rank())
	}
	p.holds[block], p.valid[block] = h, true
}

// verify counts the pages of block that differ from the model's KV for h.
func (p *pageMemory) verify(m Model, block int32, h keys.Hash) int {
	bad := 0
	for i, s := range p.slots {
		if !m.Equal(p.Page(i, block), h, s.LayerGroup.ID, s.Rank()) {
			bad++
		}
	}
	return bad
}

// landed records that block's pages were loaded with the KV of hash h.
func (p *pageMemory) landed(block int32, h keys.Hash) { p.holds[block], p.valid[block] = h, true }

func (p *pageMemory) invalidate(block int32) { p.valid[block] = false }

// bytesPerBlock is the size of one block's pages on every rank.
func (p *pageMemory) bytesPerBlock() int64 {
	var n int64
	for _, s := range p.slots {
		n += s.Bytes
	}
	return n
}

// allRankSlots lists the page slots of every rank of l, rank by rank: the
// engine holds every rank's shard of a block (tensor parallelism in one
// process).
func allRankSlots(l keys.Layout) []connector.PageSlot {
	var out []connector.PageSlot
	for _, rank := range l.Ranks {
		out = append(out, connector.PageSlots(l, rank)...)
	}
	return out
}

// rankPages is one rank's view of the page memory: its page slots start
// at slot offset.
type rankPages struct {
	p      *pageMemory
	offset int
}

// Page returns the rank's page slot slot of KV block block.
func (v rankPages) Page(slot int, block int32) []byte { return v.p.Page(v.offset+slot, block) }

// Holds reports the chain hash whose KV block block holds.
func (v rankPages) Holds(block int32) (keys.Hash, bool) { return v.p.Holds(block) }
