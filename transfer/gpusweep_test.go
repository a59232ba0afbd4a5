package transfer

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool/mem"
)

// TestGPUSweep runs the memcpy, kernel and batch modes on cuda:0 at 4 KiB
// and 64 KiB regions in both directions, then the Parallel and
// StagingBuffers variants (KVCTL_GPU_SWEEP_SET=base or variants runs one
// part only), and logs GB/s against the contiguous baseline. It runs only
// with KVCTL_GPU_SWEEP=1 on a machine with a GPU; with KVCTL_GPU_SWEEP_OUT
// set it also writes JSON lines there. KVCTL_GPU_SWEEP_DEVICE=host times
// the sweep on host emulation.
func TestGPUSweep(t *testing.T) {
	if os.Getenv("KVCTL_GPU_SWEEP") != "1" {
		t.Skip("set KVCTL_GPU_SWEEP=1 to run the GPU sweep")
	}
	dev, err := cuda.Open(cmp.Or(os.Getenv("KVCTL_GPU_SWEEP_DEVICE"), "cuda"))
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer dev.Close()
	var cases []BenchOptions
	set := os.Getenv("KVCTL_GPU_SWEEP_SET")
	if set != "variants" {
		cases = append(cases, gpuSweepCases()...)
	}
	if set != "base" {
		cases = append(cases, gpuVariantCases()...)
	}
	enc := sweepOutput(t)
	for _, c := range cases {
		r, ok := runSweepCase(t, dev, c)
		if ok && enc != nil {
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// sweepOutput opens KVCTL_GPU_SWEEP_OUT for JSON lines, written as the
// cases finish; nil when unset.
func sweepOutput(t *testing.T) *json.Encoder {
	out := os.Getenv("KVCTL_GPU_SWEEP_OUT")
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return json.NewEncoder(f)
}

func runSweepCase(t *testing.T, dev cuda.Device, c BenchOptions) (BenchResult, bool) {
	store, err := mem.New(mem.Options{Capacity: 1 << 30, Segments: 2, ArenaSize: 64 << 20, Eviction: mem.EvictManual})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c.Device, c.Pool, c.Verify = dev, store, true
	r, err := Bench(context.Background(), c)
	if errors.Is(err, cuda.ErrUnsupported) {
		t.Logf("%s %s: %v", c.Direction, c.Mode, err)
		return r, false
	}
	if err != nil {
		t.Errorf("Bench(%+v) error = %v", c, err)
		return r, false
	}
	t.Logf("%-4s %-6s direct=%-5v zero-copy=%-5v workers=%2d par=%2d bufs=%d set=%5d batch=%4d page=%6d region=%6d: %6.2f GB/s (copy %6.2f), baseline %6.2f, ratio %.2f, verify %s, ms %v, cpu ms %v",
		r.Direction, r.Mode, r.Direct, c.stagedZeroCopy, r.Workers, r.Parallel, r.Geometry.Buffers, r.Geometry.SetPages, r.Geometry.Batch, r.PageBytes, r.RegionBytes,
		r.GBps, r.CopyGBps, r.BaselineGBps, r.Ratio, r.Verify, roundMS(r.PhaseMS), roundMS(r.PhaseCPUMS))
	return r, true
}

func gpuSweepCases() []BenchOptions {
	var cases []BenchOptions
	shapes := []struct {
		page    int64
		regions int
		pages   int
	}{
		{4 << 10, 1, 16384},  // 4 KiB regions, 64 MiB
		{64 << 10, 16, 4096}, // 4 KiB regions in 64 KiB pages, 256 MiB
		{128 << 10, 2, 2048}, // 64 KiB regions, 256 MiB
	}
	for _, dir := range []Direction{DirectionLoad, DirectionSave} {
		for _, s := range shapes {
			for _, mode := range cuda.CopyModes {
				cases = append(cases, BenchOptions{Direction: dir, PageBytes: s.page, RegionsPerPage: s.regions, Pages: s.pages, RequestPages: 64, Options: Options{Mode: mode, Batch: 256}})
			}
		}
	}
	big := BenchOptions{Direction: DirectionLoad, PageBytes: 128 << 10, RegionsPerPage: 2, Pages: 2048, RequestPages: 64, Options: Options{Batch: 256}}
	for _, mode := range cuda.CopyModes {
		c := big
		c.Mode, c.Direct = mode, true
		cases = append(cases, c)
		for _, workers := range []int{4, 8, 16} {
			c := big
			c.Mode, c.Async, c.Workers = mode, true, workers
			cases = append(cases, c)
		}
	}
	// Larger batches at 4 KiB pages: fewer launches and syncs.
	for _, mode := range cuda.CopyModes {
		cases = append(cases, BenchOptions{Direction: DirectionLoad, PageBytes: 4 << 10, RegionsPerPage: 1, Pages: 16384, RequestPages: 1024, Options: Options{Mode: mode, Batch: 2048}})
	}
	return cases
}

// gpuVariantCases compares Parallel and StagingBuffers settings in kernel
// mode (1 thread and 1 buffer is the unpipelined path), and a staged
// set's one contiguous copy against the kernel's reads of staging, on
// 1 GiB.
func gpuVariantCases() []BenchOptions {
	var cases []BenchOptions
	settings := [][2]int{{1, 1}, {1, 2}, {8, 1}, {4, 2}, {16, 2}, {8, 3}}
	for _, dir := range []Direction{DirectionLoad, DirectionSave} {
		for _, shape := range [][3]int64{{4 << 10, 1, 16384}, {64 << 10, 16, 4096}} {
			for _, st := range settings {
				cases = append(cases, BenchOptions{Direction: dir, PageBytes: shape[0], RegionsPerPage: int(shape[1]), Pages: int(shape[2]), RequestPages: 64, Options: Options{Mode: cuda.ModeKernel, Batch: 256, Parallel: st[0], StagingBuffers: st[1]}})
			}
		}
	}
	// A staged set through the bounce buffer (the default) or read by the
	// kernel in staging, with every thread and with four.
	for _, dir := range []Direction{DirectionLoad, DirectionSave} {
		for _, page := range []int64{4 << 10, 64 << 10} {
			for _, zero := range []bool{false, true} {
				for _, par := range []int{0, 4} {
					cases = append(cases, BenchOptions{Direction: dir, PageBytes: page, RegionsPerPage: 2, Pages: int(1 << 30 / page), RequestPages: 32,
						Options: Options{Mode: cuda.ModeKernel, Parallel: par, stagedZeroCopy: zero}})
				}
			}
		}
	}
	for _, par := range []int{2, 16} {
		cases = append(cases, BenchOptions{Direction: DirectionLoad, PageBytes: 128 << 10, RegionsPerPage: 2, Pages: 2048, RequestPages: 64, Async: true, Options: Options{Mode: cuda.ModeKernel, Batch: 256, Workers: 4, Parallel: par}})
	}
	return cases
}

// TestGPUHostCopy measures plain CPU copies in 64 KiB blocks over 256 MiB
// with 1 to 16 goroutines: Go memory to pinned staging and back, between
// touched Go buffers, and into fresh Go memory (first-touch faults). It
// tells how fast a pool's Gets and Puts can fill and drain staging on the
// machine. It runs only with KVCTL_GPU_SWEEP=1 on a machine with a GPU.
func TestGPUHostCopy(t *testing.T) {
	if os.Getenv("KVCTL_GPU_SWEEP") != "1" {
		t.Skip("set KVCTL_GPU_SWEEP=1 to run the host copy probe")
	}
	dev, err := cuda.Open("cuda")
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer dev.Close()
	const n = 256 << 20
	pinned, err := dev.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()
	heap := make([]byte, n)
	heap2 := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		heap[i], heap2[i], pinned.Bytes()[i] = 1, 1, 1
	}
	for _, threads := range []int{1, 2, 4, 8, 16} {
		fresh := make([]byte, n)
		var line strings.Builder
		for _, c := range []struct {
			name     string
			dst, src []byte
		}{
			{"heap->pinned", pinned.Bytes(), heap},
			{"pinned->heap", heap, pinned.Bytes()},
			{"heap->heap", heap2, heap},
			{"heap->fresh", fresh, heap},
		} {
			fmt.Fprintf(&line, " %s %6.2f", c.name, parallelCopyGBps(c.dst, c.src, threads))
		}
		t.Logf("host copy, %2d threads, GB/s:%s", threads, line.String())
	}
}

// parallelCopyGBps copies src to dst in 64 KiB blocks, threads goroutines
// taking contiguous shares, and returns the rate.
func parallelCopyGBps(dst, src []byte, threads int) float64 {
	const block = 64 << 10
	start := time.Now()
	var wg sync.WaitGroup
	for w := range threads {
		lo, hi := w*len(src)/threads, (w+1)*len(src)/threads
		wg.Go(func() {
			for off := lo; off < hi; off += block {
				end := min(off+block, hi)
				copy(dst[off:end], src[off:end])
			}
		})
	}
	wg.Wait()
	return float64(len(src)) / time.Since(start).Seconds() / 1e9
}

func roundMS(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		out[k] = float64(int(v*100)) / 100
	}
	return out
}
