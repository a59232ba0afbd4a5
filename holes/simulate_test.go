package holes

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/workload"
)

const traceHead = "../workload/testdata/trace-conversation-head.jsonl"

func traceSettings() keys.Settings {
	return keys.Settings{
		Scheme: keys.SchemeTRTLLM,
		Layout: keys.Layout{TokensPerBlock: 32, World: 1, Ranks: []int{0},
			LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 64 << 10}}},
		Namespace: keys.Namespace{Name: "trtllm", ModelKey: "m"},
	}
}

// memPool opens what kvctl simulates: a metadata-only mem pool of the given
// segments (0: mem's default) whose eviction step the simulator runs.
func memPool(segments int) func(int64, func() time.Time) (pool.Store, error) {
	return func(capacity int64, now func() time.Time) (pool.Store, error) {
		return mem.New(mem.Options{Capacity: capacity, Segments: segments, MetadataOnly: true, Eviction: mem.EvictManual, Now: now})
	}
}

func prepareHead(t *testing.T) ([]Prepared, workload.Source) {
	t.Helper()
	src, err := workload.Open(traceHead, workload.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := Prepare(context.Background(), src, traceSettings())
	if err != nil {
		t.Fatal(err)
	}
	return reqs, src
}

// An unbounded pool reuses exactly the trace's ideal prefix reuse.
func TestSimulateUnboundedMatchesIdeal(t *testing.T) {
	reqs, src := prepareHead(t)
	ideal, err := workload.IdealPrefixReuse(src, 32)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Simulate(context.Background(), reqs, SimOptions{Keys: traceSettings(), OpenPool: memPool(0)}, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Summary.HitBlocks * 32; got != ideal.ReusableTokens {
		t.Errorf("hit tokens with an unbounded pool = %d, want the ideal %d", got, ideal.ReusableTokens)
	}
	if run.Summary.Holes != 0 || run.Pool.EvictedKeys != 0 {
		t.Errorf("unbounded pool: %d holes, %d evicted; want none", run.Summary.Holes, run.Pool.EvictedKeys)
	}
	if run.Summary.Requests != int64(len(reqs)) {
		t.Errorf("requests = %d, want %d", run.Summary.Requests, len(reqs))
	}
}

// Shrinking the pool evicts, lowers the hit rate and tears holes.
func TestSweepShrinkingCapacity(t *testing.T) {
	reqs, _ := prepareHead(t)
	opts := SimOptions{Keys: traceSettings(), SoftPinTTL: 0, OpenPool: memPool(0)}
	caps := []int64{1 << 40, 4 << 30, 1 << 30}
	runs, err := Sweep(context.Background(), reqs, opts, caps)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		if r.CapacityBytes != caps[i] {
			t.Fatalf("runs[%d].CapacityBytes = %d, want %d (order kept)", i, r.CapacityBytes, caps[i])
		}
		if r.Pool.UsedBytes > r.CapacityBytes {
			t.Errorf("capacity %d: used %d bytes, more than the capacity", caps[i], r.Pool.UsedBytes)
		}
	}
	for i := 1; i < len(runs); i++ {
		if runs[i].Summary.HitBlocks >= runs[i-1].Summary.HitBlocks {
			t.Errorf("hit blocks at %d = %d, want fewer than %d at %d", caps[i], runs[i].Summary.HitBlocks, runs[i-1].Summary.HitBlocks, caps[i-1])
		}
	}
	if runs[2].Pool.EvictedKeys == 0 {
		t.Error("a 256 MiB pool evicted nothing")
	}
}

// Eviction picks by age, not by position in a chain: when a later request
// refreshes only the first blocks of a stored prefix, the oldest of the rest
// go first and tear a hole into the prefix.
func TestSimulateEvictionTearsHole(t *testing.T) {
	run := tornHoleRun(t, false)
	h := run.Summary
	if h.Holes < 1 || h.BehindHoleBlocks < 1 || h.HitBlocks < 4 {
		t.Errorf("summary = %+v; want the third request to find its first 2 blocks, a hole, then stored blocks behind it", h)
	}
	if run.Pool.EvictedKeys == 0 {
		t.Error("nothing was evicted")
	}
	if run.Requests != nil {
		t.Errorf("Requests = %v without KeepMaps, want none", run.Requests)
	}
}

// With KeepMaps a run keeps each lookup, whose counts add up to the
// summary's, with its map.
func TestSimulateKeepsMaps(t *testing.T) {
	run := tornHoleRun(t, true)
	var ids []string
	var sum stats.Holes
	for _, r := range run.Requests {
		ids = append(ids, r.ID)
		if len(r.Map) != int(r.Blocks) {
			t.Errorf("request %s: map %q of %d blocks, want %d", r.ID, r.Map, len(r.Map), r.Blocks)
		}
		sum.AddLookup(r)
	}
	if want := []string{"A", "B", "A-again"}; !slices.Equal(ids, want) {
		t.Errorf("Requests' ids = %q, want %q", ids, want)
	}
	if sum.Holes != run.Summary.Holes || sum.HitBlocks != run.Summary.HitBlocks || sum.BehindHoleBlocks != run.Summary.BehindHoleBlocks {
		t.Errorf("the requests' lookups add up to %+v, want the summary's %+v", sum, run.Summary)
	}
	if m := run.Requests[2].Map; !strings.Contains(m, "#.") {
		t.Errorf("A-again's map = %q, want a hole", m)
	}
}

// tornHoleRun replays A, B that shares A's first 2 blocks, and A again
// into a pool too small for both, so that eviction tears a hole in A.
func tornHoleRun(t *testing.T, keepMaps bool) Run {
	t.Helper()
	k := keys.Settings{
		Scheme: keys.SchemeTRTLLM,
		Layout: keys.Layout{TokensPerBlock: 4, World: 1, Ranks: []int{0},
			LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 1024}}},
		Namespace: keys.Namespace{Name: "trtllm", ModelKey: "m"},
	}
	a := seq(25, 0)
	b := append(seq(8, 0), seq(17, 100)...)
	reqs, err := Prepare(context.Background(), sliceSource{
		{ID: "A", Tokens: a, ArrivalMS: 0},
		{ID: "B", Tokens: b, ArrivalMS: 20_000},
		{ID: "A-again", Tokens: a, ArrivalMS: 40_000},
	}, k)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Simulate(context.Background(), reqs, SimOptions{Keys: k, PutBatch: 1, OpenPool: memPool(1), KeepMaps: keepMaps}, 10*1024)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// Soft pins are put as asked.
func TestSimulateSoftPin(t *testing.T) {
	reqs, _ := prepareHead(t)
	run, err := Simulate(context.Background(), reqs[:20], SimOptions{Keys: traceSettings(), SoftPinTTL: time.Hour, OpenPool: memPool(0)}, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if run.Pool.SoftPinnedKeys != run.Pool.Keys || run.Pool.Keys == 0 {
		t.Errorf("soft-pinned keys = %d of %d, want all", run.Pool.SoftPinnedKeys, run.Pool.Keys)
	}
}

// Simulate refuses a pool it cannot drive: none, one that grants no
// leases, one that evicts on its own.
func TestSimulateNeedsADrivablePool(t *testing.T) {
	reqs, _ := prepareHead(t)
	background := func(capacity int64, now func() time.Time) (pool.Store, error) {
		return mem.New(mem.Options{Capacity: capacity, MetadataOnly: true, Now: now})
	}
	noLeases := func(capacity int64, now func() time.Time) (pool.Store, error) {
		s, err := memPool(0)(capacity, now)
		return struct{ pool.Store }{s}, err
	}
	tests := []struct {
		name string
		open func(int64, func() time.Time) (pool.Store, error)
	}{
		{"no pool", nil},
		{"eviction on its own", background},
		{"no leases", noLeases},
	}
	for _, tt := range tests {
		_, err := Simulate(context.Background(), reqs[:1], SimOptions{Keys: traceSettings(), OpenPool: tt.open}, 1<<30)
		if err == nil {
			t.Errorf("Simulate with %s = nil error, want one", tt.name)
		}
	}
}

// Pages larger than mem's arena size (160 MiB: T=512 on a 70B model) are
// stored, as a real master stores objects up to a segment, and hit.
func TestSimulateLargePages(t *testing.T) {
	k := traceSettings()
	k.Layout.TokensPerBlock = 512
	k.Layout.LayerGroups = []keys.LayerGroup{{ID: 0, BytesPerPage: 160 << 20}}
	src, err := workload.Open("../testdata/trace-small.jsonl", workload.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := Prepare(context.Background(), src, k)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Simulate(context.Background(), reqs, SimOptions{Keys: k, OpenPool: memPool(0)}, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.HitBlocks == 0 || run.FailedPuts != 0 {
		t.Errorf("160 MiB pages in 1 TiB: %d hit blocks, %d failed puts; want some hits and no failures", run.Summary.HitBlocks, run.FailedPuts)
	}
}

// The master's eviction thread runs every 10 ms, not after each put: a
// put that arrives before the next tick into a full pool fails (and asks
// for eviction), and the tick the clock passes evicts, at its instant,
// before the next request's puts.
func TestSimulateEvictsAtTicks(t *testing.T) {
	k := tinySettings()
	prepare := func(id string, tokens []int64, ms int64) Prepared {
		h, err := k.Hashes(keys.Scope{}, tokens)
		if err != nil {
			t.Fatal(err)
		}
		return Prepared{ID: id, ArrivalMS: ms, PromptTokens: len(tokens), Hashes: h}
	}
	// A fills the 16 KiB pool with its 16 one-page blocks; B saves one.
	fill := prepare("A", seq(64, 0), 0)
	tests := []struct {
		name        string
		bMS         int64
		wantFailed  int64
		wantEvicted bool
	}{
		{"before the first tick", 9, 1, false},
		{"after the first tick", 10, 0, true},
	}
	for _, tt := range tests {
		reqs := []Prepared{fill, prepare("B", seq(4, 1000), tt.bMS)}
		run, err := Simulate(context.Background(), reqs, SimOptions{Keys: k, OpenPool: memPool(1)}, 16<<10)
		if err != nil {
			t.Fatal(err)
		}
		if run.FailedPuts != tt.wantFailed {
			t.Errorf("%s: FailedPuts = %d, want %d", tt.name, run.FailedPuts, tt.wantFailed)
		}
		if got := run.Pool.EvictedKeys > 0; got != tt.wantEvicted {
			t.Errorf("%s: evicted %d keys, want eviction %v", tt.name, run.Pool.EvictedKeys, tt.wantEvicted)
		}
	}
}

// A sweep cancelled in its middle returns the runs so far, marked
// interrupted, with the context's error.
func TestSweepInterrupted(t *testing.T) {
	head, _ := prepareHead(t)
	reqs := slices.Clone(head) // twice the head: progress comes every 256 requests
	for _, r := range head {
		r.ArrivalMS += head[len(head)-1].ArrivalMS + 1
		reqs = append(reqs, r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := SimOptions{Keys: traceSettings(), OpenPool: memPool(0), Progress: func(int64, int) { cancel() }}
	runs, err := Sweep(ctx, reqs, opts, []int64{1 << 40})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Sweep(cancelled at request 256) error = %v, want %v", err, context.Canceled)
	}
	if len(runs) != 1 || !runs[0].Interrupted || runs[0].Summary.Requests != 256 || runs[0].CapacityBytes != 1<<40 {
		t.Errorf("Sweep(cancelled at request 256) = %+v, want one run of 256 requests marked interrupted", runs)
	}
}
