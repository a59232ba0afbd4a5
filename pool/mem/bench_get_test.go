package mem

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kvctl/kvctl/internal/benchcpu"
)

// getCallPages is how many pages a staged load's store call carries by
// default (transfer_batch_size).
const getCallPages = 64

// BenchmarkGetStagingGiB4KiB gets 4 KiB values, getCallPages per call,
// from GOMAXPROCS goroutines (run with -cpu 1,2,...) out of a pool that
// holds a GiB of them under the keys kvctl bench spells, into a 64 MiB
// ring of staging slots: the store calls of a staged load of a GiB, whose
// index does not fit in the caches as BenchmarkGetStaging4KiB's does. An
// op is one call; ns/item is the wall time per value and cpu-ns/item the
// process's CPU time per value.
func BenchmarkGetStagingGiB4KiB(b *testing.B) {
	s, keys := newGiBStore(b)
	staging := make([]byte, 64<<20)
	clear(staging)
	b.SetBytes(getCallPages * pageSize)
	b.ReportAllocs()
	b.ResetTimer()
	t0 := benchcpu.Process(b)
	if err := getRound(s, keys, staging, b.N); err != nil {
		b.Fatal(err)
	}
	cpu := benchcpu.Process(b) - t0
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*getCallPages), "ns/item")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*getCallPages), "cpu-ns/item")
}

// getRound makes calls Gets of getCallPages keys each (eachCall): call c
// reads the keys after c*getCallPages, round the list, into the next
// slots of staging, round the ring.
func getRound(s *Store, keys []string, staging []byte, calls int) error {
	slots := len(staging) / pageSize
	return eachCall(calls, func() func(c int) error {
		bufs, n := make([][]byte, getCallPages), make([]int64, getCallPages)
		return func(c int) error {
			off := c * getCallPages % len(keys)
			for i := range bufs {
				at := (c*getCallPages + i) % slots * pageSize
				bufs[i] = staging[at : at+pageSize]
			}
			err := s.Get(context.Background(), keys[off:off+getCallPages], bufs, n)
			if err == nil && n[0] != pageSize {
				err = fmt.Errorf("Get(%s) = %d bytes, want %d", keys[off], n[0], pageSize)
			}
			return err
		}
	})
}

// eachCall makes calls calls from GOMAXPROCS goroutines, each taking the
// next call as it goes, with the call function newCaller gives it (its
// own buffers), and returns the first error.
func eachCall(calls int, newCaller func() func(c int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			call := newCaller()
			for c := int(next.Add(1)) - 1; c < calls; c = int(next.Add(1)) - 1 {
				if err := call(c); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// newGiBStore is a store holding a GiB of 4 KiB values under the keys kvctl
// bench spells, and those keys.
func newGiBStore(b *testing.B) (*Store, []string) {
	s, err := New(Options{Capacity: (1 << 30) * 5 / 4, Eviction: EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	keys := benchKeys(gibPages)
	if err := putRound(s, keys, make([]byte, 16<<20), putCallPages); err != nil {
		b.Fatal(err)
	}
	return s, keys
}

// BenchmarkLookupGiB looks up getCallPages keys a call, in order, in an
// index of a GiB of 4 KiB values under the bench's keys, as a Get does in
// phases (lookupAllPublished) and one key at a time: whether the phases'
// probes overlap at that size. ns/key is the time per key.
func BenchmarkLookupGiB(b *testing.B) {
	s, keys := newGiBStore(b)
	objs := make([]*object, getCallPages)
	lookups := map[string]func(keys []string){
		"phases": func(keys []string) { s.lookupAllPublished(keys, objs) },
		"one-by-one": func(keys []string) {
			for i, k := range keys {
				objs[i] = s.lookupPublished(k)
			}
		},
	}
	for _, name := range []string{"phases", "one-by-one"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				off := i * getCallPages % len(keys)
				lookups[name](keys[off : off+getCallPages])
				if objs[0] == nil {
					b.Fatalf("lookup(%s) = nil, want its object", keys[off])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*getCallPages), "ns/key")
		})
	}
}
