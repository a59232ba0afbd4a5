package replay

import "time"

// EvictionInterval is how often the master's eviction thread runs.
const EvictionInterval = 10 * time.Millisecond

// Epoch is the start of a virtual clock; eviction ticks fall on multiples
// of EvictionInterval after it.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Clock is a virtual clock that models the master's eviction thread:
// advancing it runs the eviction ticks it passes (the multiples of
// EvictionInterval after Epoch), each at its own instant, so that the
// pool sees the time of the tick while it evicts. Calls between two ticks
// see no eviction. The zero Clock is not usable: use NewClock.
type Clock struct {
	now, next time.Time
	tick      func()
}

// NewClock returns a clock at Epoch whose next tick is Epoch plus
// EvictionInterval, with no tick function yet (OnTick sets it).
func NewClock() *Clock {
	return &Clock{now: Epoch, next: Epoch.Add(EvictionInterval), tick: func() {}}
}

// OnTick sets what runs at each tick (the pool's EvictNow), so that a
// pool opened on the clock's Now can be given to it afterwards.
func (c *Clock) OnTick(f func()) { c.tick = f }

// Now is the clock's time, the pool's clock.
func (c *Clock) Now() time.Time { return c.now }

// Advance moves the clock on by d, running the ticks it passes.
func (c *Clock) Advance(d time.Duration) { c.AdvanceTo(c.now.Add(d)) }

// AdvanceTo moves the clock on to t, running every tick at or before t
// that it passes, each with the clock at the tick's instant. A t before
// the clock's time leaves it where it is: a virtual clock never runs
// backwards.
func (c *Clock) AdvanceTo(t time.Time) {
	for !c.next.After(t) {
		c.now = c.next
		c.tick()
		c.next = c.next.Add(EvictionInterval)
	}
	if t.After(c.now) {
		c.now = t
	}
}
