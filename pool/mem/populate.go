package mem

import (
	"sync"

	"github.com/kvctl/kvctl/pool"
)

// populateMin is the least mean size of the values of a run (placeRun)
// whose new arena is populated ahead (populateArena): a value of a page
// or more is copied in with non-temporal stores (internal/streamcopy), so
// it gains nothing from finding the zeroed page in its own core's cache,
// and an arena of such values fills fast enough that its page faults
// weigh: serve with 64 KiB pages spent two thirds of its time faulting
// arenas in. An arena of small values fills slowly and is left to fault
// page by page: populated whole, the whole-trace replay's 128-byte values
// took 150 MiB more memory for no gain in time.
const populateMin = 4 << 10

var _ pool.ArenaPinObserver = (*Store)(nil)

// ArenasPinned says a caller pins every arena of the store (a GPU
// registering them for direct transfers): until the function it returns
// is called, an arena that values open as they need it is not populated,
// since pinning maps its pages (populated and registered at once, the
// arenas of an H200 serve run with 64 KiB pages took 2.8 s of system time
// against 1.5 s), and a segment keeps the next arena opened and populated
// ahead of the values (keepAhead), so that its registration finds its
// pages mapped.
func (s *Store) ArenasPinned() (unpinned func()) {
	s.pinners.Add(1)
	var once sync.Once
	return func() { once.Do(func() { s.pinners.Add(-1) }) }
}

// pinned says some caller pins the segment's arenas (ArenasPinned).
func (g *segment) pinned() bool { return g.pinners != nil && g.pinners.Load() > 0 }
