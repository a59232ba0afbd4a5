// Package spinmu is a mutex for short critical sections taken by many
// threads at once: it spins, yielding the core's pipeline but not the
// goroutine's thread, for up to Spin before it waits as a sync.Mutex
// waits.
//
// sync.Mutex spins only a few microseconds before it parks its goroutine,
// and a parked goroutine runs again only once the scheduler hands it a
// thread. For a goroutine locked to its thread (runtime.LockOSThread, as
// the copy helpers of package transfer are when their CPU time is
// measured) that takes two thread hand-overs. In an execution trace of
// six staged saves of 1 GiB of 4 KiB pages on a 16-core H100 virtual
// machine (run 45 of 2026-12-05, docs/benchmarks.md, "Store calls parked
// on the pool's locks") the helpers' store calls parked 875 times on the
// pool's segment and index locks, each time for about 255 µs (90 µs
// waiting for the lock, 165 µs runnable): 12% of the calls' time, for
// critical sections of about a microsecond. With this mutex they parked
// 27 times.
//
// Spinning costs where a lock is contended most of the time: when the
// critical section is a third of each goroutine's loop, BenchmarkContended
// moves 290-330 ns a turn against sync.Mutex's 180-250 on the 2-core
// development VM (sync.Mutex lets one goroutine run alone while the other
// sleeps); with ten times the work outside, both move 520-620 ns.
package spinmu

import (
	"sync"
	"time"
	_ "unsafe" // go:linkname
)

// Spin is how long Lock spins for a held lock before it parks.
const Spin = 50 * time.Microsecond

// spinCycles is the PAUSE instructions (or the architecture's like) of
// one spin, as sync.Mutex's own spins (runtime's active_spin_cnt).
const spinCycles = 30

// clockEvery is how many spins go between two looks at the clock.
const clockEvery = 8

// procyield executes cycles PAUSE instructions. It is the runtime's,
// which keeps it reachable by linkname for packages outside the runtime
// (runtime/stubs.go: "Do not remove or change the type signature",
// go.dev/issue/67401).
//
//go:linkname procyield runtime.procyield
func procyield(cycles uint32)

// Mutex is a mutual exclusion lock that spins up to Spin before it parks.
// The zero value is unlocked; a Mutex must not be copied after first use.
type Mutex struct {
	mu sync.Mutex
}

// Lock locks m, spinning up to Spin while it is held, then waiting as
// sync.Mutex.Lock does.
func (m *Mutex) Lock() {
	if m.mu.TryLock() {
		return
	}
	m.lockSlow()
}

// lockSlow spins, trying the lock after each spin and reading the clock
// every clockEvery spins, until it holds the lock or Spin has passed; then
// it waits in sync.Mutex.Lock.
func (m *Mutex) lockSlow() {
	var start time.Time
	for spins := 1; ; spins++ {
		procyield(spinCycles)
		if m.mu.TryLock() {
			return
		}
		if spins%clockEvery != 0 {
			continue
		}
		if start.IsZero() {
			start = time.Now()
		} else if time.Since(start) >= Spin {
			break
		}
	}
	m.mu.Lock()
}

// TryLock locks m if it is free and reports whether it did.
func (m *Mutex) TryLock() bool { return m.mu.TryLock() }

// Unlock unlocks m; it is a run-time error if m is not locked.
func (m *Mutex) Unlock() { m.mu.Unlock() }
