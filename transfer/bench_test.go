package transfer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

func newMemPool(t testing.TB, capacity int64) *mem.Store {
	t.Helper()
	s, err := mem.New(mem.Options{Capacity: capacity, Segments: 2, ArenaSize: 4 << 20, Eviction: mem.EvictManual})
	if err != nil {
		t.Fatalf("mem.New error = %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestBench(t *testing.T) {
	dev := testDevice(t)
	tests := []BenchOptions{
		{Direction: DirectionLoad, Options: Options{Mode: cuda.ModeMemcpy}},
		{Direction: DirectionLoad, RegionsPerPage: 4, Options: Options{Mode: cuda.ModeKernel}},
		{Direction: DirectionLoad, Options: Options{Mode: cuda.ModeBatch}},
		{Direction: DirectionLoad, Options: Options{Mode: cuda.ModeKernel, Direct: true}},
		{Direction: DirectionLoad, Warmups: 2, Options: Options{Mode: cuda.ModeKernel, Direct: true}},
		{Direction: DirectionSave, Warmups: 1, Options: Options{Mode: cuda.ModeKernel}},
		{Direction: DirectionLoad, Async: true, Options: Options{Mode: cuda.ModeKernel, Workers: 3}},
		{Direction: DirectionSave, Options: Options{Mode: cuda.ModeMemcpy}},
		{Direction: DirectionSave, RegionsPerPage: 1, Options: Options{Mode: cuda.ModeKernel}},
	}
	for _, o := range tests {
		name := fmt.Sprintf("%s/%s/direct=%v/async=%v/warmups=%d", o.Direction, o.Mode, o.Direct, o.Async, o.Warmups)
		t.Run(name, func(t *testing.T) {
			o.Device, o.Pool = dev, newMemPool(t, 64<<20)
			o.PageBytes, o.Pages, o.RequestPages, o.Batch, o.Verify = 4<<10, 300, 16, 32, true
			r, err := Bench(context.Background(), o)
			skipUnsupported(t, err)
			if err != nil {
				t.Fatalf("Bench(%s) error = %v", name, err)
			}
			if r.Verify != "ok" || r.Bytes != 300*4096 || r.Seconds <= 0 || r.BaselineSeconds <= 0 || r.Missing != 0 || r.Failed != 0 {
				t.Errorf("Bench(%s) = %+v, want a verified run of 300 pages", name, r)
			}
			if r.StoreCalls == 0 || len(r.PhaseMS) == 0 {
				t.Errorf("Bench(%s) phases %v, store calls %d, want both", name, r.PhaseMS, r.StoreCalls)
			}
			// The helpers' store calls ran inside the transfer's wall time.
			if r.HelpersBusy < 0 || r.HelpersBusy > 1 {
				t.Errorf("Bench(%s) helpers_busy = %v, want a share of the helpers' time", name, r.HelpersBusy)
			}
			// A second run finds the pool seeded (loads) or clears it (saves).
			if _, err := Bench(context.Background(), o); err != nil {
				t.Errorf("second Bench(%s) error = %v", name, err)
			}
		})
	}
}

// corruptStore flips the first byte of every value it returns.
type corruptStore struct{ pool.Store }

func (c corruptStore) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	err := c.Store.Get(ctx, keys, bufs, n)
	for i := range bufs {
		if n[i] > 0 {
			bufs[i][0] ^= 0xff
		}
	}
	return err
}

func TestBenchVerifyFails(t *testing.T) {
	dev := testDevice(t)
	for _, dir := range []Direction{DirectionLoad, DirectionSave} {
		o := BenchOptions{Direction: dir, PageBytes: 1024, Pages: 10, Verify: true, Warmups: 1, Options: Options{Device: dev, Pool: corruptStore{newMemPool(t, 16<<20)}}}
		r, err := Bench(context.Background(), o)
		if !errors.Is(err, ErrVerifyFailed) || r.Verify == "ok" {
			t.Errorf("Bench(%s, corrupting pool) = %q, %v, want ErrVerifyFailed", dir, r.Verify, err)
		}
	}
}

// TestBenchInCalls cuts each transfer into calls of 7 pages, loads and
// saves, staged and direct, and checks every page moved and each call
// made its own store calls (one call of the 60 pages would make 2).
func TestBenchInCalls(t *testing.T) {
	dev := testDevice(t)
	for _, dir := range []Direction{DirectionLoad, DirectionSave} {
		for _, direct := range []bool{false, true} {
			name := fmt.Sprintf("%s/direct=%v", dir, direct)
			t.Run(name, func(t *testing.T) {
				o := BenchOptions{Direction: dir, CallPages: 7, Options: Options{Mode: cuda.ModeKernel, Direct: direct}}
				o.Device, o.Pool = dev, newMemPool(t, 64<<20)
				o.PageBytes, o.Pages, o.RequestPages, o.Batch, o.Verify = 4<<10, 60, 16, 32, true
				r, err := Bench(context.Background(), o)
				if err != nil {
					t.Fatalf("Bench(%s) error = %v", name, err)
				}
				if r.Verify != "ok" || r.Calls != 9 || r.CallPages != 7 || r.StoreCalls < 9 {
					t.Errorf("Bench(%s) = verify %q, %d calls of %d pages, %d store calls; want ok, 9 of 7, at least 9",
						name, r.Verify, r.Calls, r.CallPages, r.StoreCalls)
				}
			})
		}
	}
}

func TestBenchRejects(t *testing.T) {
	dev := testDevice(t)
	p := newMemPool(t, 1<<20)
	tests := []BenchOptions{
		{Options: Options{Pool: p}},
		{Options: Options{Device: dev}},
		{Direction: "sideways", Options: Options{Device: dev, Pool: p}},
		{Direction: DirectionSave, Async: true, Options: Options{Device: dev, Pool: p}},
		{Direction: DirectionSave, Options: Options{Device: dev, Pool: p, Direct: true}},
		{PageBytes: 1000, RegionsPerPage: 3, Options: Options{Device: dev, Pool: p}},
		{Pages: -1, Options: Options{Device: dev, Pool: p}},
		{Warmups: -1, Options: Options{Device: dev, Pool: p}},
		{Repeats: -1, Options: Options{Device: dev, Pool: p}},
		{CallPages: -1, Options: Options{Device: dev, Pool: p}},
		{Async: true, CallPages: 8, Options: Options{Device: dev, Pool: p}},
	}
	for i, o := range tests {
		if _, err := Bench(context.Background(), o); err == nil {
			t.Errorf("Bench(case %d: %+v) succeeded, want an error", i, o)
		}
	}
}

// BenchmarkLoad measures loads through staging on host emulation, per copy
// mode and region size.
func BenchmarkLoad(b *testing.B) {
	for _, regionBytes := range []int64{4 << 10, 64 << 10} {
		for _, mode := range cuda.CopyModes {
			b.Run(fmt.Sprintf("%s/region=%dKiB", mode, regionBytes>>10), func(b *testing.B) {
				benchmarkTransfer(b, DirectionLoad, mode, regionBytes)
			})
		}
	}
}

// BenchmarkSave measures saves through staging on host emulation.
func BenchmarkSave(b *testing.B) {
	for _, regionBytes := range []int64{4 << 10, 64 << 10} {
		for _, mode := range cuda.CopyModes {
			b.Run(fmt.Sprintf("%s/region=%dKiB", mode, regionBytes>>10), func(b *testing.B) {
				benchmarkTransfer(b, DirectionSave, mode, regionBytes)
			})
		}
	}
}

func benchmarkTransfer(b *testing.B, dir Direction, mode cuda.CopyMode, regionBytes int64) {
	const pages, regions = 256, 2
	dev := testDevice(b)
	store := newMemPool(b, 256<<20)
	layout, pools := benchPagePools(b, dev, pages, regions, regionBytes)
	rs := refs("p", 0, 0, pages)
	o := Options{Device: dev, Pool: store, Pools: pools, Mode: mode, Batch: 64}
	putAllLayout(b, store, layout, rs)
	b.SetBytes(pages * regions * regionBytes)
	if dir == DirectionLoad {
		l, err := NewLoader(o)
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		for b.Loop() {
			if _, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: rs}}); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	s, err := NewSaver(o)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		// Keys exist after the first pass: later passes measure the
		// gather and the put-if-absent answers.
		if _, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPagePools is a uniform layout of one group of pages of regions
// regions of regionBytes, and its GPU pages, closed when b ends.
func benchPagePools(b *testing.B, dev cuda.Device, pages, regions int, regionBytes int64) (Layout, []*PagePool) {
	layout, err := UniformLayout(1, regions, int64(regions)*regionBytes)
	if err != nil {
		b.Fatal(err)
	}
	pools, err := NewPagePools(dev, layout, pages)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ClosePagePools(pools) })
	return layout, pools
}

func putAllLayout(b *testing.B, s pool.Store, layout Layout, rs []PageRef) {
	items := make([]pool.PutItem, len(rs))
	for i, r := range rs {
		items[i] = pool.PutItem{Key: r.Key, Value: pageValue(r.Key, layout.Groups[r.LayerGroup].PageBytes())}
	}
	codes := make([]pool.Code, len(items))
	if err := s.Put(context.Background(), items, codes); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDirect4KiB measures direct-mode loads and saves of 4 KiB pages
// (kernel copies) on host emulation: the per-page costs of the store calls
// and of describing the copies, which are the same on a GPU. Saves remove
// their keys between rounds, untimed.
func BenchmarkDirect4KiB(b *testing.B) {
	const pages, regions, regionBytes = 16384, 2, 2 << 10
	dev := testDevice(b)
	store, err := mem.New(mem.Options{Capacity: 128 << 20, Segments: 1, Eviction: mem.EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	layout, pools := benchPagePools(b, dev, pages, regions, regionBytes)
	rs := refs("p", 0, 0, pages)
	o := Options{Device: dev, Pool: store, Pools: pools, Mode: cuda.ModeKernel, Batch: 64, Direct: true}
	b.Run("load", func(b *testing.B) {
		putAllLayout(b, store, layout, rs)
		l, err := NewLoader(o)
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		b.SetBytes(pages * regions * regionBytes)
		for b.Loop() {
			if _, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: rs}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("save", func(b *testing.B) {
		s, err := NewSaver(o)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		keys := make([]string, pages)
		for i, r := range rs {
			keys[i] = r.Key
		}
		codes := make([]pool.Code, pages)
		b.SetBytes(pages * regions * regionBytes)
		for range b.N {
			b.StopTimer()
			if err := store.Remove(context.Background(), keys, true, codes); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil)
			if err != nil || res.Stored != pages {
				b.Fatalf("Save = %+v, %v, want %d pages stored", res, err, pages)
			}
		}
	})
}

// TestBenchWarmupsAreNotCounted checks that warm-up runs leave no trace in
// the result: the timed run's store calls are those of one transfer.
func TestBenchWarmupsAreNotCounted(t *testing.T) {
	dev := testDevice(t)
	for _, dir := range []Direction{DirectionLoad, DirectionSave} {
		var calls [2]int64
		for i, warmups := range []int{0, 2} {
			o := BenchOptions{Direction: dir, PageBytes: 4096, Pages: 96, Verify: true, Warmups: warmups, Options: Options{Device: dev, Pool: newMemPool(t, 16<<20), Mode: cuda.ModeKernel, Batch: 16}}
			r, err := Bench(context.Background(), o)
			if err != nil || r.Verify != "ok" {
				t.Fatalf("Bench(%s, %d warm-ups) = %q, %v, want a verified run", dir, warmups, r.Verify, err)
			}
			calls[i] = r.StoreCalls
		}
		if calls[0] != calls[1] || calls[0] == 0 {
			t.Errorf("Bench(%s) store calls = %d without warm-ups, %d with 2, want the same, not 0", dir, calls[0], calls[1])
		}
	}
}

// TestBenchRepeatsReportTheMedian times three transfers of each kind: the
// result lists the three times, its time is their median, its ratio lies
// between the slowest's and the fastest's, and its counters are one
// transfer's, as a run of one reports them.
func TestBenchRepeatsReportTheMedian(t *testing.T) {
	dev := testDevice(t)
	for _, o := range []BenchOptions{
		{Direction: DirectionLoad},
		{Direction: DirectionLoad, Async: true, Options: Options{Workers: 2}},
		{Direction: DirectionSave},
		{Direction: DirectionSave, Options: Options{Direct: true}},
	} {
		name := fmt.Sprintf("%s/direct=%v/async=%v", o.Direction, o.Direct, o.Async)
		o.Device, o.Mode, o.Batch = dev, cuda.ModeKernel, 16
		o.PageBytes, o.Pages, o.Verify = 4096, 96, true
		var calls [2]int64
		for i, repeats := range []int{1, 3} {
			o.Pool, o.Repeats = newMemPool(t, 16<<20), repeats
			r, err := Bench(context.Background(), o)
			skipUnsupported(t, err)
			if err != nil || r.Verify != "ok" || r.Missing != 0 || r.Failed != 0 {
				t.Fatalf("Bench(%s, %d repeats) = %+v, %v, want a verified run", name, repeats, r, err)
			}
			calls[i] = r.StoreCalls
			if repeats == 1 {
				if r.Repeats != 1 || r.RunSeconds != nil || r.RatioMin != 0 || r.RatioMax != 0 {
					t.Errorf("Bench(%s, 1 repeat) repeats %d, runs %v, ratios %v-%v, want one run and no range", name, r.Repeats, r.RunSeconds, r.RatioMin, r.RatioMax)
				}
				continue
			}
			sorted := slices.Sorted(slices.Values(r.RunSeconds))
			if r.Repeats != 3 || len(sorted) != 3 || r.Seconds != sorted[1] {
				t.Fatalf("Bench(%s, 3 repeats) repeats %d, seconds %v of runs %v, want the median of 3", name, r.Repeats, r.Seconds, r.RunSeconds)
			}
			if !(r.RatioMin <= r.Ratio && r.Ratio <= r.RatioMax && r.RatioMin > 0) {
				t.Errorf("Bench(%s, 3 repeats) ratio %v, range %v-%v, want it inside", name, r.Ratio, r.RatioMin, r.RatioMax)
			}
		}
		if calls[0] != calls[1] || calls[0] == 0 {
			t.Errorf("Bench(%s) store calls %d for one run, %d for the median of 3, want the same, not 0", name, calls[0], calls[1])
		}
	}
}

// helpersBusy divides the helpers' CPU time by every worker's helpers
// (Parallel-1 each) and the wall time, and is zero without helpers.
func TestHelpersBusy(t *testing.T) {
	tests := []struct {
		parallel, workers int
		cpu               time.Duration
		seconds, want     float64
	}{
		{parallel: 16, cpu: 15 * time.Second, seconds: 2, want: 0.5},
		{parallel: 4, workers: 3, cpu: 9 * time.Second, seconds: 2, want: 0.5},
		{parallel: 1, cpu: time.Second, seconds: 1, want: 0},
		{parallel: 4, cpu: time.Second, seconds: 0, want: 0},
	}
	for _, tc := range tests {
		b := &benchRun{res: &BenchResult{Parallel: tc.parallel, Workers: tc.workers}}
		if got := b.helpersBusy(tc.cpu, tc.seconds); got != tc.want {
			t.Errorf("helpersBusy(%v, %v) with parallel %d, workers %d = %v, want %v", tc.cpu, tc.seconds, tc.parallel, tc.workers, got, tc.want)
		}
	}
}
