package transfer

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool/mem"
)

func TestHostSweepScratch(t *testing.T) {
	if os.Getenv("HOSTSWEEP") == "" {
		t.Skip()
	}
	dev := testDevice(t)
	type c struct {
		dir    Direction
		page   int64
		reg    int
		pages  int
		direct bool
		async  bool
	}
	cases := []c{
		{DirectionLoad, 4 << 10, 1, 16384, false, false},
		{DirectionLoad, 64 << 10, 16, 1024, false, false},
		{DirectionLoad, 64 << 10, 16, 1024, false, true},
		{DirectionLoad, 64 << 10, 16, 1024, true, false},
		{DirectionSave, 4 << 10, 1, 16384, false, false},
		{DirectionSave, 64 << 10, 16, 1024, false, false},
	}
	for _, cc := range cases {
		for _, mode := range []cuda.CopyMode{cuda.ModeMemcpy, cuda.ModeKernel} {
			store, _ := mem.New(mem.Options{Capacity: 1 << 30, Segments: 2, ArenaSize: 64 << 20, Eviction: mem.EvictManual})
			best := BenchResult{}
			for range 3 {
				r, err := Bench(context.Background(), BenchOptions{Device: dev, Pool: store, Direction: cc.dir, Mode: mode, PageBytes: cc.page, RegionsPerPage: cc.reg, Pages: cc.pages, RequestPages: 64, Batch: 256, Direct: cc.direct, Async: cc.async, Workers: 4, Verify: true, Parallel: envInt("PAR"), StagingBuffers: envInt("BUFS")})
				if err != nil {
					t.Fatal(err)
				}
				if r.GBps > best.GBps {
					best = r
				}
			}
			store.Close()
			fmt.Printf("%-4s %-6s page=%6d direct=%-5v async=%-5v %6.2f GB/s base %6.2f ratio %.2f copy %6.2f ms %v cpu %v\n", cc.dir, mode, cc.page, cc.direct, cc.async, best.GBps, best.BaselineGBps, best.Ratio, best.CopyGBps, roundMS(best.PhaseMS), roundMS(best.PhaseCPUMS))
		}
	}
}

func envInt(k string) int {
	var n int
	fmt.Sscan(os.Getenv(k), &n)
	return n
}
