package mem

import "os"

// trailLead is how far ahead of the fill of an arena of small values its
// pages are mapped (trail). Such an arena is filled from its start, one
// allocation after the other, so its next pages are known; mapped on
// another goroutine a little ahead of the fill, their page faults and the
// kernel's zeroing leave the goroutine that puts, while the memory taken
// ahead of need stays at most trailLead a segment. The whole-trace replay,
// 128-byte values, spent a tenth of its engine goroutine's time faulting
// arenas in; populated whole, the same arenas took 150 MiB more memory
// (populateMin).
const trailLead = 1 << 20

// trail has the pages of the arena holding the allocation that ends at
// end (a segment offset) mapped ahead through g.populate, up to trailLead
// past end, once end comes within half of trailLead of what was mapped
// before: one call for every trailLead/2 of fill. An allocation that
// reuses freed space below the mark maps nothing. g.mu is held.
func (g *segment) trail(end int64) {
	if g.noBytes || end+trailLead/2 <= g.trailed {
		return
	}
	i := g.arenaOf(end - 1)
	if i == len(g.arenas) {
		return
	}
	a := g.arenas[i]
	from := max(g.trailed, a.start) - a.start
	from -= from % int64(os.Getpagesize())
	to := min(end-a.start+trailLead, a.end-a.start)
	if to > from {
		g.populate(a.mem[from:to])
	}
	g.trailed = a.start + to
}
