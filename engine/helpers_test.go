package engine

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/workload"
)

// testWorkload is a few dozen multi-turn requests sharing a system prompt.
var testWorkload = workload.Conversations{Conversations: 6, Turns: 4, System: 200, User: 40, Output: 12,
	SystemPrompts: 1, IntervalMS: 50, ThinkMS: 400, Vocab: 1000}

// sliceSource is a workload.Source over requests in memory.
type sliceSource []workload.Request

func (s sliceSource) Name() string { return "test requests" }

func (s sliceSource) Each(fn func(workload.Request) error) error {
	for _, r := range s {
		r.Tokens = append([]int64(nil), r.Tokens...)
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// tokensOf returns n tokens counting from start.
func tokensOf(start, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(start + i)
	}
	return out
}

// newMemPool opens a mem pool of capacity bytes (byte mode) whose leases
// and eviction run on clock, the eviction step driven by the engine, as
// serve's embedded pool.
func newMemPool(clock *Clock, capacity int64) (*mem.Store, error) {
	return mem.New(mem.Options{Capacity: capacity, Eviction: mem.EvictManual, Now: clock.Now})
}

// testConfig is a small engine on a fresh mem pool (manual eviction, on
// the config's clock); the pool is closed with the test.
func testConfig(t *testing.T) (Config, *mem.Store) {
	t.Helper()
	clk := NewClock()
	p, err := newMemPool(clk, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return Config{Pool: p, Clock: clk, Verify: true, Keys: keys.Settings{Layout: DefaultLayout(16)}, GPU: GPUConfig{Blocks: 40}}, p
}

// checkingStore checks every page put against the model: a page whose KV
// was not computed would not match. It wraps a pool with single-rank keys
// of layer group ids below 10.
type checkingStore struct {
	pool.Store

	mu      sync.Mutex
	puts    int
	bad     []string
	onExist func(keys []string, status []int)
}

func (c *checkingStore) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	c.mu.Lock()
	for _, it := range items {
		c.puts++
		if !c.computed(it) {
			c.bad = append(c.bad, it.Key)
		}
	}
	c.mu.Unlock()
	return c.Store.Put(ctx, items, results)
}

// computed reports whether an item's bytes are the model's page for its
// key: {ns}/{model}/w{W}r{R}/lg{N}/t{T}b{B}/{hex}.
func (c *checkingStore) computed(it pool.PutItem) bool {
	parts := strings.Split(it.Key, "/")
	if len(parts) < 4 {
		return false
	}
	lgText, hexText := parts[len(parts)-3], parts[len(parts)-1]
	raw, err := hex.DecodeString(hexText)
	if err != nil || len(raw) != keys.HashSize || len(lgText) != 3 || lgText[:2] != "lg" {
		return false
	}
	var h keys.Hash
	copy(h[:], raw)
	rank := -1 // replicated
	if shard := parts[len(parts)-4]; shard != "replicated" {
		_, r, ok := strings.Cut(shard, "r")
		n, err := strconv.Atoi(r)
		if !ok || err != nil {
			return false
		}
		rank = n
	}
	return Model{Regions: DefaultRegions}.Equal(it.Value, h, int(lgText[2]-'0'), rank)
}

func (c *checkingStore) ExistLeasing(ctx context.Context, k []string, s []int) error {
	if err := c.Store.(pool.LeasingExister).ExistLeasing(ctx, k, s); err != nil {
		return err
	}
	if c.onExist != nil {
		c.onExist(k, s)
	}
	return nil
}

func runOK(t *testing.T, cfg Config, src workload.Source) Report {
	t.Helper()
	rep, err := Run(context.Background(), cfg, src, nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.Completed != rep.Requests || rep.Failed != 0 {
		t.Fatalf("Run completed %d of %d requests, %d failed: %+v", rep.Completed, rep.Requests, rep.Failed, rep.FailedRequests)
	}
	if rep.VerifyMismatches != 0 {
		t.Fatalf("Run: %d verification mismatches, want 0", rep.VerifyMismatches)
	}
	return rep
}

// arrive registers request w with this engine alone, at its arrival time.
func (e *engine) arrive(w workload.Request) error {
	if r := e.newArrival(hashArrival(e.cfg.Keys, w), float64(w.ArrivalMS)); r != nil {
		e.waiting.pushBack(r)
	}
	return nil
}
