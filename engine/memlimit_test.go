package engine

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
)

// limitDuringRun runs cfg and returns the Go memory limit the run set, read
// at its last progress call.
func limitDuringRun(t *testing.T, cfg Config) int64 {
	t.Helper()
	var limit int64
	_, err := Run(context.Background(), cfg, testWorkload, func(Progress) { limit = debug.SetMemoryLimit(-1) })
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return limit
}

// withPageBytes is cfg with one layer group of pages of n bytes and a
// floor of 1 MiB.
func withPageBytes(cfg Config, n int64) Config {
	cfg.Keys.Layout.LayerGroups = []keys.LayerGroup{{ID: 0, BytesPerPage: n}}
	cfg.MemoryLimit = 1 << 20
	return cfg
}

func TestMemoryLimitGrowsWithThePageSize(t *testing.T) {
	const poolBytes = 64 << 20 // testConfig's pool
	prev := int64(0)
	for _, page := range []int64{128, 64 << 10, 1 << 20} {
		cfg, _ := testConfig(t)
		cfg = withPageBytes(cfg, page)
		kept := int64(cfg.GPU.Blocks)*page + poolBytes
		got := limitDuringRun(t, cfg)
		if got < kept || got <= prev {
			t.Errorf("memory limit with %d-byte pages = %d, want at least the %d bytes kept and more than %d with smaller pages",
				page, got, kept, prev)
		}
		prev = got
	}
}

func TestMemoryLimitFloor(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.MemoryLimit = 1 << 40
	if got := limitDuringRun(t, cfg); got != cfg.MemoryLimit {
		t.Errorf("memory limit of a small run = %d, want Config.MemoryLimit %d", got, cfg.MemoryLimit)
	}
}

// outOfProcess hides the pool's arenas: its capacity is not this process's.
type outOfProcess struct{ pool.Store }

func TestMemoryLimitCountsOnlyPoolsInProcess(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg = withPageBytes(cfg, 1<<20)
	inProcess := limitDuringRun(t, cfg)
	cfg.Pool = outOfProcess{cfg.Pool}
	cfg.Clock = NewClock()
	if got, gpu := limitDuringRun(t, cfg), int64(cfg.GPU.Blocks)<<20; got >= inProcess || got < gpu {
		t.Errorf("memory limit with the pool out of process = %d, want below %d (in process) and at least the GPU's %d",
			got, inProcess, gpu)
	}
}
