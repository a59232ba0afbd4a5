package engine

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/workload"
)

// newTestEngine returns an engine on a fresh pool with the given requests
// already arrived.
func newTestEngine(t *testing.T, edit func(*Config), reqs ...workload.Request) *engine {
	t.Helper()
	cfg, _ := testConfig(t)
	edit(&cfg)
	return arrivedEngine(t, cfg, reqs...)
}

// arrivedEngine returns an engine of cfg with the given requests already
// arrived.
func arrivedEngine(t *testing.T, cfg Config, reqs ...workload.Request) *engine {
	t.Helper()
	e, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if err := e.arrive(r); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// scheduledTokens runs one pass and returns the tokens each batched
// request was scheduled, by ID.
func scheduledTokens(t *testing.T, e *engine) map[string]int {
	t.Helper()
	if err := e.iteration(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range e.batch {
		out[r.userID] = r.scheduled
	}
	return out
}

func TestChunkedPrefillBudget(t *testing.T) {
	e := newTestEngine(t, func(c *Config) { c.Scheduler.MaxNumTokens = 64 },
		workload.Request{ID: "a", Tokens: tokensOf(0, 150), OutputLength: 3},
		workload.Request{ID: "b", Tokens: tokensOf(1000, 20), OutputLength: 3})
	want := []map[string]int{
		{"a": 64},          // a's first chunk takes the whole budget
		{"a": 64},          // second chunk
		{"a": 22, "b": 20}, // a's rest, then b fits
		{"a": 1, "b": 1},   // both decode one token
	}
	for i, w := range want {
		if got := scheduledTokens(t, e); !cmp.Equal(got, w) {
			t.Errorf("pass %d scheduled %v, want %v", i+1, got, w)
		}
	}
}

func TestMaxBatchSize(t *testing.T) {
	var reqs []workload.Request
	for i := range 5 {
		reqs = append(reqs, workload.Request{ID: string(rune('a' + i)), Tokens: tokensOf(100*i, 10), OutputLength: 2})
	}
	e := newTestEngine(t, func(c *Config) { c.Scheduler.MaxBatchSize = 2 }, reqs...)
	want := []map[string]int{
		{"a": 10, "b": 10},
		{"a": 1, "b": 1}, // a and b finish here
		{"c": 10, "d": 10},
	}
	for i, w := range want {
		if got := scheduledTokens(t, e); !cmp.Equal(got, w) {
			t.Errorf("pass %d scheduled %v, want %v", i+1, got, w)
		}
	}
}

// TestPreemption runs two requests whose decodes outgrow the KV cache: the
// newer one is preempted, readmitted later, and both complete.
func TestPreemption(t *testing.T) {
	e := newTestEngine(t, func(c *Config) { c.GPU.Blocks = 6 },
		workload.Request{ID: "old", Tokens: tokensOf(0, 40), OutputLength: 40},
		workload.Request{ID: "new", Tokens: tokensOf(500, 40), OutputLength: 40})
	if got := scheduledTokens(t, e); !cmp.Equal(got, map[string]int{"old": 40, "new": 40}) {
		t.Fatalf("first pass scheduled %v, want both prompts", got)
	}
	for i := 0; e.counts.completed < 2; i++ {
		if i > 500 {
			t.Fatalf("not done after 500 passes: %d completed", e.counts.completed)
		}
		if err := e.iteration(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(e.running) == 2 && e.running[0].userID != "old" {
			t.Fatalf("running order %s, %s: the older request was preempted", e.running[0].userID, e.running[1].userID)
		}
	}
	if e.counts.preemptions == 0 || e.counts.mismatches != 0 {
		t.Errorf("%d preemptions and %d mismatches, want some and none", e.counts.preemptions, e.counts.mismatches)
	}
}

func TestUnservableRequestsFail(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.GPU.Blocks = 4
	src := sliceSource{
		{ID: "fits", Tokens: tokensOf(0, 30), OutputLength: 5},
		{ID: "too-long", Tokens: tokensOf(0, 80), OutputLength: 5},
		{ID: "empty", OutputLength: 5},
	}
	rep, err := Run(context.Background(), cfg, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Completed != 1 || rep.Failed != 2 || len(rep.FailedRequests) != 2 {
		t.Errorf("completed %d, failed %d (%v); want 1 and 2", rep.Completed, rep.Failed, rep.FailedRequests)
	}
}

func TestArrivalsFollowTheVirtualClock(t *testing.T) {
	cfg, _ := testConfig(t)
	src := sliceSource{
		{ID: "a", Tokens: tokensOf(0, 20), OutputLength: 1, ArrivalMS: 0},
		{ID: "b", Tokens: tokensOf(100, 20), OutputLength: 1, ArrivalMS: 60_000},
	}
	rep := runOK(t, cfg, src)
	// Each request is served alone: one pass of 20 prefill tokens.
	c := DefaultCosts()
	// One pass: 20 prefill tokens and one block of pages saved.
	want := c.IterationMS + 20*c.PrefillTokenMS + float64(DefaultPageBytes)/(c.TransferGBps*1e6)
	if rep.TTFTMS.P99 > want+1e-5 || rep.TTFTMS.P50 < want-1e-5 {
		t.Errorf("TTFT %+v, want every request at %v ms (no queueing across the idle gap)", rep.TTFTMS, want)
	}
	if got := cfg.Clock.ElapsedMS(); got < 60_000 {
		t.Errorf("virtual clock at %v ms, want past the second arrival at 60000", got)
	}
}
