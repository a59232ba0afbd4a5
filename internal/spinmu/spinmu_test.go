package spinmu

import (
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

// BenchmarkContended takes one lock from every goroutine for a short
// critical section (a few cache lines touched), as the pool's segment
// lock is taken by each store call: spinmu against sync.Mutex.
func BenchmarkContended(b *testing.B) {
	var shared [64]int64
	work := func() {
		for i := range shared {
			shared[i]++
		}
	}
	b.Run("spinmu", func(b *testing.B) {
		var m Mutex
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Lock()
				work()
				m.Unlock()
			}
		})
	})
	b.Run("sync", func(b *testing.B) {
		var m sync.Mutex
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Lock()
				work()
				m.Unlock()
			}
		})
	})
}
