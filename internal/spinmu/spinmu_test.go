package spinmu

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMutexExcludes(t *testing.T) {
	var m Mutex
	var wg sync.WaitGroup
	count, inside := 0, atomic.Int32{}
	const goroutines, each = 8, 2000
	for range goroutines {
		wg.Go(func() {
			for range each {
				m.Lock()
				if inside.Add(1) != 1 {
					t.Error("two goroutines hold the lock")
				}
				count++
				inside.Add(-1)
				m.Unlock()
			}
		})
	}
	wg.Wait()
	if count != goroutines*each {
		t.Fatalf("count = %d, want %d", count, goroutines*each)
	}
}

// TestLockWaitsPastItsSpin holds the lock far longer than Spin: the
// waiter parks, and gets the lock only once it is unlocked.
func TestLockWaitsPastItsSpin(t *testing.T) {
	var m Mutex
	m.Lock()
	var released atomic.Bool
	got := make(chan bool)
	go func() {
		m.Lock()
		got <- released.Load()
		m.Unlock()
	}()
	time.Sleep(20 * Spin)
	released.Store(true)
	m.Unlock()
	if !<-got {
		t.Fatal("Lock returned while the lock was held")
	}
}

func TestTryLock(t *testing.T) {
	var m Mutex
	if !m.TryLock() {
		t.Fatal("TryLock of a free mutex failed")
	}
	if m.TryLock() {
		t.Fatal("TryLock of a held mutex succeeded")
	}
	m.Unlock()
	if !m.TryLock() {
		t.Fatal("TryLock after Unlock failed")
	}
	m.Unlock()
}

// BenchmarkContended takes one lock from every goroutine (-cpu sets how
// many) for a short critical section, a few cache lines touched, between
// stretches of other work (work= loop turns, about 0.4 ns each on the
// development VM), as the pool's segment lock is taken once by each store
// call: spinmu against sync.Mutex, with the goroutines free to move
// between threads and locked to theirs (as the measured copy helpers of
// package transfer are). -cpu above the machine's cores shows what
// spinning costs when the lock's holder may not be running.
func BenchmarkContended(b *testing.B) {
	var shared [64]int64
	inside := func() {
		for i := range shared {
			shared[i]++
		}
	}
	for _, work := range []int{200, 2000} {
		for _, locked := range []bool{false, true} {
			for _, kind := range []string{"spinmu", "sync"} {
				var lk sync.Locker = &Mutex{}
				if kind == "sync" {
					lk = &sync.Mutex{}
				}
				b.Run(fmt.Sprintf("work=%d/locked=%v/%s", work, locked, kind), func(b *testing.B) {
					contend(b, lk, inside, work, locked)
				})
			}
		}
	}
}

// contend is BenchmarkContended's loop on every goroutine: the lock, the
// critical section, then work turns of other work.
func contend(b *testing.B, lk sync.Locker, inside func(), work int, locked bool) {
	var sink atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		if locked {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		n := 0
		for pb.Next() {
			lk.Lock()
			inside()
			lk.Unlock()
			for i := range work {
				n += i * i
			}
		}
		sink.Add(int64(n))
	})
}
