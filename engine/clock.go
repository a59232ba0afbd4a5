package engine

import (
	"sync/atomic"
	"time"
)

// Epoch is where a Clock made by NewClock starts: a fixed instant, so that
// replays are reproducible.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Clock is the replay's virtual clock: it moves only when the engine
// charges an iteration's modelled cost or jumps to the next arrival. Give
// its Now to the pool (mem.Options.Now) so that leases, soft pins and
// eviction age on the same clock as the trace; the engine runs the
// eviction step of a pool.Evicter in manual mode on this clock. It is safe for concurrent
// use.
type Clock struct {
	start time.Time
	nanos atomic.Int64 // since start
}

// NewClock returns a clock at Epoch.
func NewClock() *Clock { return &Clock{start: Epoch} }

// Now returns the current virtual time.
func (c *Clock) Now() time.Time { return c.start.Add(time.Duration(c.nanos.Load())) }

// Elapsed returns the virtual time since the clock started.
func (c *Clock) Elapsed() time.Duration { return time.Duration(c.nanos.Load()) }

// ElapsedMS returns Elapsed in milliseconds.
func (c *Clock) ElapsedMS() float64 { return float64(c.nanos.Load()) / 1e6 }

// Advance moves the clock forward by d (a negative d is ignored).
func (c *Clock) Advance(d time.Duration) {
	if d > 0 {
		c.nanos.Add(int64(d))
	}
}

// AdvanceTo moves the clock forward to ms milliseconds after its start; it
// never moves it back.
func (c *Clock) AdvanceTo(ms float64) {
	target := int64(ms * 1e6)
	for {
		cur := c.nanos.Load()
		if target <= cur || c.nanos.CompareAndSwap(cur, target) {
			return
		}
	}
}
