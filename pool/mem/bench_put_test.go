package mem

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kvctl/kvctl/internal/benchcpu"
	"github.com/kvctl/kvctl/pool"
)

// putCallPages is how many 4 KiB pages a staged save's store call carries
// at least (transfer.MinCallBytes).
const putCallPages = 32

// putCallSizes are the pages a call of BenchmarkPut4KiB carries: fewer
// and more than putCallPages, so that the price of a call shows (kvctl
// bench --transfer-batch-size 8 to 64 made 4,096 to 32,768 calls a GiB).
var putCallSizes = []int{8, putCallPages, 64}

// benchKeys are n keys spelled as kvctl bench spells its pages' keys
// (prefix/page bytes/seed/page): keys that do not pack.
func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("kvctl-bench/%d/1/%d", pageSize, i)
	}
	return keys
}

// BenchmarkPut4KiB puts 4 KiB values, pages=N per call, from GOMAXPROCS
// goroutines (run with -cpu 1,2,...): the store calls of a staged save of
// a GiB, copies included, from a 16 MiB source as a staging buffer is. An
// op is one call; ns/item is the wall time per value. The work runs in
// rounds of at most a GiB whose keys are removed, untimed, before the next
// round. cpu-ns/item is the process's CPU time per value in the timed
// rounds, less sensitive than ns/item to other processes.
func BenchmarkPut4KiB(b *testing.B) {
	s, err := New(Options{Capacity: (1 << 30) * 5 / 4, Preallocate: true, Eviction: EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	keys := benchKeys(gibPages)
	codes := make([]pool.Code, len(keys))
	src := make([]byte, 16<<20)
	// An untimed round first, so that every measured round finds the
	// index grown to a GiB's keys and the arenas touched.
	if err := putRound(s, keys, src, putCallPages); err != nil {
		b.Fatal(err)
	}
	s.Remove(context.Background(), keys, true, codes)
	for _, per := range putCallSizes {
		b.Run(fmt.Sprintf("pages=%d", per), func(b *testing.B) {
			benchPutCalls(b, s, keys, codes, src, per)
		})
	}
}

// benchPutCalls is BenchmarkPut4KiB's timed rounds of calls of per pages.
func benchPutCalls(b *testing.B, s *Store, keys []string, codes []pool.Code, src []byte, per int) {
	roundCalls := gibPages / per
	b.SetBytes(int64(per) * pageSize)
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration
	for done := 0; done < b.N; {
		n := min(b.N-done, roundCalls)
		t0 := benchcpu.Process(b)
		if err := putRound(s, keys[:n*per], src, per); err != nil {
			b.Fatal(err)
		}
		cpu += benchcpu.Process(b) - t0
		b.StopTimer()
		s.Remove(context.Background(), keys[:n*per], true, codes[:n*per])
		b.StartTimer()
		done += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*per), "ns/item")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*per), "cpu-ns/item")
}

// putRound puts keys, per in a call (eachCall); each value is the next 4
// KiB of src, round the ring.
func putRound(s *Store, keys []string, src []byte, per int) error {
	return eachCall(len(keys)/per, func() func(c int) error {
		items := make([]pool.PutItem, per)
		codes := make([]pool.Code, per)
		return func(c int) error {
			off := c * per
			for i := range items {
				at := (off + i) * pageSize % len(src)
				items[i] = pool.PutItem{Key: keys[off+i], Value: src[at : at+pageSize]}
			}
			err := s.Put(context.Background(), items, codes)
			if err == nil && codes[0] != pool.OK {
				err = fmt.Errorf("Put(%s) = %v, want OK", items[0].Key, codes[0])
			}
			return err
		}
	})
}
