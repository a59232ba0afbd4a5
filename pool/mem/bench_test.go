package mem

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// BenchmarkExist measures batched read-only Exist over a pool of 1M keys,
// half the probes hitting; it reports keys/s (run with -cpu 1).
func BenchmarkExist(b *testing.B) { benchmarkExist(b, false) }

// BenchmarkExistLeasing is BenchmarkExist with ExistLeasing: every present
// key is leased in the master's shard-walk order.
func BenchmarkExistLeasing(b *testing.B) { benchmarkExist(b, true) }

func benchmarkExist(b *testing.B, leasing bool) {
	const stored, batch = 1 << 20, 1024
	s, err := New(Options{Capacity: 1 << 30, MetadataOnly: true, Eviction: EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	keys := make([]string, 2*stored)
	for i := range keys {
		keys[i] = fmt.Sprintf("trtllm/model/%016x-%08d", uint64(i)*0x9e3779b97f4a7c15, i)
	}
	items := make([]pool.PutItem, stored)
	for i := range items {
		items[i] = pool.PutItem{Key: keys[2*i], Size: 64}
	}
	if err := s.Put(ctx, items, make([]pool.Code, stored)); err != nil {
		b.Fatal(err)
	}
	status := make([]int, batch)
	b.ReportAllocs()
	b.ResetTimer()
	probed := 0
	for i := 0; b.Loop(); i++ {
		off := (i * batch) % (len(keys) - batch)
		exist := s.Exist
		if leasing {
			exist = s.ExistLeasing
		}
		if err := exist(ctx, keys[off:off+batch], status); err != nil {
			b.Fatal(err)
		}
		probed += batch
	}
	b.ReportMetric(float64(probed)/b.Elapsed().Seconds(), "keys/s")
}

// BenchmarkPut64KiB measures putting 64 KiB values into a pool that never
// fills (each round removes what it put).
func BenchmarkPut64KiB(b *testing.B) {
	const size, batch = 64 << 10, 64
	s, err := New(Options{Capacity: 256 << 20, Eviction: EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	items := make([]pool.PutItem, batch)
	keys := make([]string, batch)
	for i := range items {
		keys[i] = fmt.Sprintf("put/%d", i)
		items[i] = pool.PutItem{Key: keys[i], Value: make([]byte, size)}
	}
	res := make([]pool.Code, batch)
	b.SetBytes(size * batch)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Put(ctx, items, res); err != nil || res[0] != pool.OK {
			b.Fatal(err, res[0])
		}
		b.StopTimer()
		s.Remove(ctx, keys, true, res)
		b.StartTimer()
	}
}

// BenchmarkGet64KiB measures getting 64 KiB values into caller buffers.
func BenchmarkGet64KiB(b *testing.B) { benchmarkGet(b, 64<<10, 64, 1024) }

// BenchmarkGet4KiB measures getting 4 KiB values, 32 per call (the calls a
// transfer's batch of 4 KiB pages is split into), from 64 MiB of them: the
// per-key cost weighs more than the copy.
func BenchmarkGet4KiB(b *testing.B) { benchmarkGet(b, 4<<10, 32, 16384) }

// BenchmarkGetParallel64KiB is BenchmarkGet64KiB from GOMAXPROCS
// goroutines at once (run with -cpu 1,2,4,8): how Gets scale.
func BenchmarkGetParallel64KiB(b *testing.B) {
	const size, batch, stored = 64 << 10, 32, 4096
	s := newGetBenchStore(b, size, stored)
	all := keysN("get/", stored)
	b.SetBytes(size * batch)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		bufs, n := getBuffers(size, batch)
		for i := 0; pb.Next(); i++ {
			off := (i * batch) % stored
			if err := s.Get(context.Background(), all[off:off+batch], bufs, n); err != nil || n[0] != size {
				b.Error(err, n[0])
				return
			}
		}
	})
}

func newGetBenchStore(b *testing.B, size int64, stored int) *Store {
	s, err := New(Options{Capacity: 2 * size * int64(stored), Eviction: EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	items := make([]pool.PutItem, stored)
	for i, k := range keysN("get/", stored) {
		items[i] = pool.PutItem{Key: k, Value: make([]byte, size)}
	}
	if err := s.Put(context.Background(), items, make([]pool.Code, stored)); err != nil {
		b.Fatal(err)
	}
	return s
}

func getBuffers(size int64, batch int) ([][]byte, []int64) {
	bufs := make([][]byte, batch)
	for i := range bufs {
		bufs[i] = make([]byte, size)
	}
	return bufs, make([]int64, batch)
}

func benchmarkGet(b *testing.B, size int64, batch, stored int) {
	s := newGetBenchStore(b, size, stored)
	all := keysN("get/", stored)
	ctx := context.Background()
	bufs, n := getBuffers(size, batch)
	b.SetBytes(size * int64(batch))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		off := (i * batch) % stored
		if err := s.Get(ctx, all[off:off+batch], bufs, n); err != nil || n[0] != size {
			b.Fatal(err, n[0])
		}
	}
}

// BenchmarkCopy64KiB is the memory-bandwidth baseline for the two above:
// plain copies of 64 KiB blocks spread over 64 MiB.
func BenchmarkCopy64KiB(b *testing.B) {
	const size, batch, stored = 64 << 10, 64, 1024
	src := make([]byte, size*stored)
	dst := make([][]byte, batch)
	for i := range dst {
		dst[i] = make([]byte, size)
	}
	b.SetBytes(size * batch)
	for i := 0; b.Loop(); i++ {
		off := (i * batch) % stored
		for j := range dst {
			copy(dst[j], src[(off+j)*size:(off+j+1)*size])
		}
	}
}

// BenchmarkEvictNow measures one eviction step over a metadata-only pool of
// 1M objects at 95% used (each step evicts 100,000 of them, then they are
// put back untimed).
func BenchmarkEvictNow(b *testing.B) {
	const objects = 1 << 20
	s, err := New(Options{Capacity: objects * 64 * 100 / 95, Segments: 4, MetadataOnly: true, Eviction: EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	items := make([]pool.PutItem, objects)
	for i := range items {
		items[i] = pool.PutItem{Key: fmt.Sprintf("evict/%08d", i), Size: 64}
	}
	res := make([]pool.Code, objects)
	for b.Loop() {
		b.StopTimer()
		s.Put(ctx, items, res)
		b.StartTimer()
		if step := s.RunEvictionStep(); step.Pass1 == 0 {
			b.Fatalf("RunEvictionStep() = %+v, want evictions", step)
		}
	}
}

// BenchmarkPutParallel4KiB puts 4 KiB values, 32 per call, from
// GOMAXPROCS goroutines (run with -cpu 1,2,4,8): the index lock's hold
// time per key bounds how Puts scale. Each round removes what it put,
// untimed.
func BenchmarkPutParallel4KiB(b *testing.B) {
	const size, batch, rounds = 4 << 10, 32, 1024
	s, err := New(Options{Capacity: 256 << 20, Preallocate: true, Eviction: EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	value := make([]byte, size)
	var next atomic.Int64
	b.SetBytes(size * batch)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		items := make([]pool.PutItem, batch)
		res := make([]pool.Code, batch)
		for pb.Next() {
			base := next.Add(batch) % (rounds * batch)
			for i := range items {
				items[i] = pool.PutItem{Key: fmt.Sprintf("put/%d", base+int64(i)), Value: value}
			}
			if err := s.Put(context.Background(), items, res); err != nil {
				b.Error(err)
				return
			}
			keys := make([]string, batch)
			for i := range keys {
				keys[i] = items[i].Key
			}
			s.Remove(context.Background(), keys, true, res)
		}
	})
}

// BenchmarkViewBatch4KiB measures ViewBatch and release over 4 KiB values,
// in batches of 32 and 256 keys, from 64 MiB of them: the per-key cost of
// a direct-mode transfer's lookups, reported as ns/key.
func BenchmarkViewBatch4KiB(b *testing.B) {
	const size, stored = 4 << 10, 16384
	s := newGetBenchStore(b, size, stored)
	all := keysN("get/", stored)
	for _, batch := range []int{32, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			views, codes := make([][]byte, batch), make([]pool.Code, batch)
			b.ReportAllocs()
			viewed := 0
			for i := 0; b.Loop(); i++ {
				off := (i * batch) % (stored - batch)
				release := s.ViewBatch(all[off:off+batch], views, codes)
				if codes[0] != pool.OK || len(views[0]) != size {
					b.Fatal(codes[0], len(views[0]))
				}
				release()
				viewed += batch
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(viewed), "ns/key")
		})
	}
}

// BenchmarkGetStaging4KiB gets 4 KiB values, 64 per call, into buffers
// that walk through 64 MiB, as a staged load fills its staging slots:
// the destination is not in the caches when it is written.
func BenchmarkGetStaging4KiB(b *testing.B) { benchmarkGetStaging(b, 4<<10, 64, 16384) }

// BenchmarkGetStaging64KiB is BenchmarkGetStaging4KiB with 64 KiB values,
// 32 per call.
func BenchmarkGetStaging64KiB(b *testing.B) { benchmarkGetStaging(b, 64<<10, 32, 1024) }

func benchmarkGetStaging(b *testing.B, size int64, batch, stored int) {
	s := newGetBenchStore(b, size, stored)
	all := keysN("get/", stored)
	ctx := context.Background()
	staging := make([]byte, 64<<20)
	slots := len(staging) / int(size)
	bufs, n := make([][]byte, batch), make([]int64, batch)
	b.SetBytes(size * int64(batch))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		off := (i * batch) % stored
		for j := range bufs {
			at := ((i*batch + j) % slots) * int(size)
			bufs[j] = staging[at : at+int(size)]
		}
		if err := s.Get(ctx, all[off:off+batch], bufs, n); err != nil || n[0] != size {
			b.Fatal(err, n[0])
		}
	}
}
