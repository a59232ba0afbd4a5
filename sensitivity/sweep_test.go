package sensitivity

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/workload"
)

// conversations is a multi-turn workload whose later turns reread their
// conversation's earlier prefix.
var conversations = workload.Conversations{Conversations: 40, Turns: 5, System: 256, User: 64, Output: 16,
	SystemPrompts: 4, IntervalMS: 200, ThinkMS: 15000, Vocab: 1000}

// sweepOptions sweeps conversations with 4 KiB pages on T = 16, so each
// proxy page stands for 32 pages' worth of bytes.
func sweepOptions() Options {
	l := keys.Layout{TokensPerBlock: 16, LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 4096}}, World: 1, Ranks: []int{0}}
	return Options{
		Config: engine.Config{Keys: keys.Settings{Layout: l}, Verify: true, GPU: engine.GPUConfig{Blocks: 48}},
		OpenPool: func(capacity int64, clock *engine.Clock) (pool.Store, error) {
			return mem.New(mem.Options{Capacity: capacity, Eviction: mem.EvictManual, Now: clock.Now})
		},
		Source:   func() (workload.Source, error) { return conversations, nil },
		WindowMS: 5000, RecentMS: 60_000, Criteria: DefaultCriteria(),
	}
}

func TestSweepAcrossTheCliff(t *testing.T) {
	caps := []int64{2 << 20, 64 << 20} // 512 and 16,384 blocks of 4 KiB
	runs, err := Sweep(context.Background(), sweepOptions(), caps)
	if err != nil {
		t.Fatalf("Sweep: %v", err)
	}
	small, large := runs[0], runs[1]
	for _, r := range runs {
		if r.Report.Completed != r.Report.Requests || r.Report.VerifyMismatches != 0 || len(r.Windows) == 0 {
			t.Errorf("capacity %d: %d of %d completed, %d mismatches, %d windows; want all, 0 and some",
				r.CapacityBytes, r.Report.Completed, r.Report.Requests, r.Report.VerifyMismatches, len(r.Windows))
		}
	}
	if small.CapacityBlocks != 512 || small.PoolBytes != 512*ProxyPageBytes {
		t.Errorf("2 MiB of 4 KiB blocks: %d blocks in a %d-byte proxy pool, want 512 in %d", small.CapacityBlocks, small.PoolBytes, 512*ProxyPageBytes)
	}
	if small.EvictedKeys == 0 || small.RecentMisses == 0 || small.HitRate >= large.HitRate {
		t.Errorf("small pool: %d evicted, %d recent misses, hit rate %.3f; want evictions, misses and less than the large pool's %.3f",
			small.EvictedKeys, small.RecentMisses, small.HitRate, large.HitRate)
	}
	if large.EvictedKeys != 0 || large.RecentMisses != 0 || len(large.Bursts) != 0 {
		t.Errorf("large pool: %d evicted, %d recent misses, %d bursts; want none", large.EvictedKeys, large.RecentMisses, len(large.Bursts))
	}
	if got := small.TornMisses + small.WholeMisses; got != small.RecentMisses {
		t.Errorf("small pool: %d torn + %d whole misses, want the %d recent misses", small.TornMisses, small.WholeMisses, small.RecentMisses)
	}
}

func TestSweepIsDeterministic(t *testing.T) {
	caps := []int64{2 << 20, 3 << 20, 4 << 20}
	a, err := Sweep(context.Background(), sweepOptions(), caps)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Sweep(context.Background(), sweepOptions(), caps)
	if err != nil {
		t.Fatal(err)
	}
	ignore := cmpopts.IgnoreFields(engine.Report{}, "WallSeconds", "Load", "Save")
	if diff := cmp.Diff(a, b, ignore); diff != "" {
		t.Errorf("two sweeps differ (-first +second):\n%s", diff)
	}
}

func TestSweepInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	caps := []int64{2 << 20, 64 << 20}
	runs, err := Sweep(ctx, sweepOptions(), caps)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Sweep(cancelled) error = %v, want context.Canceled", err)
	}
	if len(runs) != len(caps) {
		t.Fatalf("Sweep(cancelled) = %d runs, want one per capacity (%d)", len(runs), len(caps))
	}
	for _, r := range runs {
		if !r.Report.Interrupted || r.CapacityBytes == 0 {
			t.Errorf("Sweep(cancelled) run %+v, want its capacity and its report marked interrupted", r.CapacityBytes)
		}
	}
}
