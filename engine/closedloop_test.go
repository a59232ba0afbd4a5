package engine

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
)

// TestArrivalsDue: open loop, a request is due at its arrival time;
// closed loop, whenever fewer than the clients are in flight, at once.
func TestArrivalsDue(t *testing.T) {
	src := sliceSource{{ID: "a", Tokens: tokensOf(0, 4), ArrivalMS: 100}}
	tests := []struct {
		name     string
		clients  int
		now      float64
		inFlight int64
		wantOK   bool
		wantAt   float64
		wantNext float64
	}{
		{"open loop, before its time", 0, 50, 0, false, 0, 100},
		{"open loop, at its time", 0, 100, 5, true, 100, 100},
		{"open loop, late", 0, 130.5, 0, true, 100, 100},
		{"closed loop, a client idle", 2, 7.5, 1, true, 7.5, math.Inf(1)},
		{"closed loop, every client busy", 2, 7.5, 2, false, 0, math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newArrivals(src, tt.clients, keys.Settings{})
			defer a.stop()
			if got := a.nextAt(); got != tt.wantNext {
				t.Errorf("nextAt() = %v, want %v", got, tt.wantNext)
			}
			_, at, ok := a.due(tt.now, tt.inFlight)
			if ok != tt.wantOK || at != tt.wantAt {
				t.Errorf("due(%v, %d) = %v, %v, want %v, %v", tt.now, tt.inFlight, at, ok, tt.wantAt, tt.wantOK)
			}
		})
	}
}

// TestClosedLoopAdmitsOnFinish: C clients keep C requests in flight; the
// next arrives when one finishes, at that moment.
func TestClosedLoopAdmitsOnFinish(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Concurrency = 3
	c, err := newCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.close() })
	reqs, err := workload.Collect(testWorkload)
	if err != nil {
		t.Fatal(err)
	}
	in := newArrivals(sliceSource(reqs), cfg.Concurrency, c.owners[0].cfg.Keys)
	defer in.stop()
	ctx := context.Background()
	e := c.owners[0]
	if err := c.admitArrivals(ctx, in); err != nil {
		t.Fatal(err)
	}
	if e.counts.requests != 3 {
		t.Fatalf("closed loop of 3 admitted %d requests at the start, want 3", e.counts.requests)
	}
	for e.counts.completed == 0 {
		if err := e.iteration(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.admitArrivals(ctx, in); err != nil {
			t.Fatal(err)
		}
		if n := e.counts.inFlight(); n > 3 {
			t.Fatalf("%d requests in flight, want at most 3", n)
		}
	}
	if want := 3 + e.counts.completed; e.counts.requests != want {
		t.Fatalf("after %d finished %d requests arrived, want %d", e.counts.completed, e.counts.requests, want)
	}
	last := e.waiting.items[len(e.waiting.items)-1]
	if now := e.clock.ElapsedMS(); last.arrivalMS != now || now == 0 {
		t.Errorf("the last request arrived at %v ms, want the first finish, %v ms", last.arrivalMS, now)
	}
}

// TestClosedLoopReplay: a closed-loop replay ignores arrival times (far
// apart here), completes every request, is deterministic, and reports its
// throughput over the modelled duration.
func TestClosedLoopReplay(t *testing.T) {
	reqs, err := workload.Collect(testWorkload)
	if err != nil {
		t.Fatal(err)
	}
	var output int64
	for i := range reqs {
		reqs[i].ArrivalMS = int64(i) * 3_600_000
		output += int64(reqs[i].OutputLength)
	}
	run := func(concurrency int) Report {
		cfg, _ := testConfig(t)
		cfg.Concurrency = concurrency
		return runOK(t, cfg, sliceSource(reqs))
	}
	open, closed := run(0), run(4)
	if open.DurationMS < 3_600_000 || closed.DurationMS >= 3_600_000 {
		t.Errorf("duration open loop %v ms, closed loop %v ms; want the open loop's over an hour, the closed loop's under", open.DurationMS, closed.DurationMS)
	}
	if closed.Concurrency != 4 || closed.OutputTokens != output {
		t.Errorf("concurrency %d, output tokens %d; want 4 and %d", closed.Concurrency, closed.OutputTokens, output)
	}
	if want := float64(output) / closed.DurationMS * 1e3; closed.OutputTokensPerS != want {
		t.Errorf("output tokens/s = %v, want %v", closed.OutputTokensPerS, want)
	}
	ignore := cmpopts.IgnoreFields(Report{}, "WallSeconds", "Load", "Save")
	if diff := cmp.Diff(closed, run(4), ignore); diff != "" {
		t.Errorf("two closed-loop replays differ (-first +second):\n%s", diff)
	}
}

// TestLiveRefusesConcurrency: live clients bring their own concurrency.
func TestLiveRefusesConcurrency(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Concurrency = 2
	if _, err := NewLive(cfg, LiveOptions{}); err == nil {
		t.Errorf("NewLive with concurrency 2: no error, want one")
	}
}
