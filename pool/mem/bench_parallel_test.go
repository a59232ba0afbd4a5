package mem

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvctl/kvctl/internal/benchcpu"
	"github.com/kvctl/kvctl/pool"
)

// A GiB of 4 KiB pages: the unit of a direct-mode save or load.
const (
	pageSize  = 4 << 10
	gibPages  = (1 << 30) / pageSize
	pageBatch = 64
)

// BenchmarkReserveCommit4KiB reserves and commits 4 KiB values, 64 per
// call, from GOMAXPROCS goroutines (run with -cpu 1,2,4,...): the index
// and allocator work of a direct-mode save, without the bytes. An op is
// one call; ns/item is the wall time per value. Keys are always absent: the
// work runs in rounds of at most a GiB whose keys are removed, untimed,
// before the next round (the index keeps the size it grew to, as a pool
// that evicts does). cpu-ns/item is the process's CPU time per value in
// the timed rounds.
func BenchmarkReserveCommit4KiB(b *testing.B) {
	const roundBatches = gibPages / pageBatch
	s, err := New(Options{Capacity: (1 << 30) * 5 / 4, Preallocate: true, Eviction: EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	keys := keysN("reserve/", gibPages)
	codes := make([]pool.Code, len(keys))
	// An untimed round first, so that every measured round finds the
	// index grown to a GiB's keys, as after the first in a long run.
	if err := reserveCommitRound(s, keys); err != nil {
		b.Fatal(err)
	}
	s.Remove(context.Background(), keys, true, codes)
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration
	for done := 0; done < b.N; {
		n := min(b.N-done, roundBatches)
		t0 := benchcpu.Process(b)
		if err := reserveCommitRound(s, keys[:n*pageBatch]); err != nil {
			b.Fatal(err)
		}
		cpu += benchcpu.Process(b) - t0
		b.StopTimer()
		s.Remove(context.Background(), keys[:n*pageBatch], true, codes[:n*pageBatch])
		b.StartTimer()
		done += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pageBatch), "ns/item")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*pageBatch), "cpu-ns/item")
}

// reserveCommitRound reserves and commits keys, pageBatch per call, from
// GOMAXPROCS goroutines taking the next batch as they go.
func reserveCommitRound(s *Store, keys []string) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			items := make([]pool.PutItem, pageBatch)
			dsts, codes := make([][]byte, pageBatch), make([]pool.Code, pageBatch)
			for {
				off := int(next.Add(pageBatch)) - pageBatch
				if off >= len(keys) {
					return
				}
				for i := range items {
					items[i] = pool.PutItem{Key: keys[off+i], Size: pageSize}
				}
				r, err := s.Reserve(context.Background(), items, dsts, codes)
				if err == nil && codes[0] != pool.OK {
					err = fmt.Errorf("Reserve(%s) = %v, want OK", items[0].Key, codes[0])
				}
				if err != nil {
					errs <- err
					return
				}
				r.Commit()
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// BenchmarkViewBatchParallel4KiB views and releases 4 KiB values, 64 per
// call, from GOMAXPROCS goroutines (run with -cpu 1,2,4,...) over a GiB of
// them: the lookups of a direct-mode load. ns/key is the wall time per key.
func BenchmarkViewBatchParallel4KiB(b *testing.B) {
	s, err := New(Options{Capacity: (1 << 30) * 5 / 4, Eviction: EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	keys := keysN("view/", gibPages)
	if err := reserveCommitRound(s, keys); err != nil {
		b.Fatal(err)
	}
	var goroutines atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		views, codes := make([][]byte, pageBatch), make([]pool.Code, pageBatch)
		// Each goroutine walks the keys from its own starting point.
		off := int(goroutines.Add(1)*7919*pageBatch) % (len(keys) - pageBatch)
		for pb.Next() {
			release := s.ViewBatch(keys[off:off+pageBatch], views, codes)
			if codes[0] != pool.OK || len(views[0]) != pageSize {
				b.Errorf("ViewBatch(%s) = %v, %d bytes, want OK, %d bytes", keys[off], codes[0], len(views[0]), pageSize)
				release()
				return
			}
			release()
			off = (off + pageBatch) % (len(keys) - pageBatch)
		}
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pageBatch), "ns/key")
}
