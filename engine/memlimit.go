package engine

import (
	"context"
	"runtime/debug"

	"github.com/kvctl/kvctl/pool"
)

// HoldMemory gives a replay the process's memory until restore is called:
// a Go soft memory limit of limit bytes with the GOGC percentage off, so
// that the collector runs only as the heap nears the limit. restore sets
// both back. Run calls it for Config.MemoryLimit; a caller running several
// replays at once calls it once for them all.
func HoldMemory(limit int64) (restore func()) {
	oldLimit, oldPercent := debug.SetMemoryLimit(limit), debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// memoryLimit is the soft memory limit of a run whose Config.MemoryLimit is
// floor: floor, or, when the run keeps more, what it keeps and a quarter
// more for the rest (the pool's index and keys, the garbage made between
// two collections). Pages are what a run keeps: with 64 KiB pages a small
// trace's pool and GPU pages take gigabytes, and a limit below them would
// have the collector run without pause while GOGC is off.
func memoryLimit(floor, kept int64) int64 {
	return max(floor, kept+kept/4)
}

// keptBytes is the most memory a run's pages take in this process: the
// GPU pages of every owner of its clusters and, for a pool whose values
// live in this process (a pool.ArenaHolder, such as the embedded mem
// pool), the pool's capacity.
func keptBytes(ctx context.Context, p pool.Store, clusters ...*cluster) int64 {
	var n int64
	for _, c := range clusters {
		for _, e := range c.owners {
			for _, m := range e.pages.mem {
				n += int64(len(m))
			}
		}
	}
	if _, inProcess := p.(pool.ArenaHolder); inProcess {
		if st, err := p.Stat(ctx); err == nil {
			n += st.CapacityBytes
		}
	}
	return n
}
