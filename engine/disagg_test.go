package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kvctl/kvctl/workload"
)

// disaggConfig is testConfig disaggregated into ctx context and gen
// generation servers.
func disaggConfig(t *testing.T, ctx, gen int) Config {
	t.Helper()
	cfg, _ := testConfig(t)
	cfg.Disagg = DisaggConfig{Context: ctx, Generation: gen}
	return cfg
}

func testRequests(t *testing.T) []workload.Request {
	t.Helper()
	reqs, err := workload.Collect(testWorkload)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestDisaggCompletesEveryRequest: every request completes, its KV moved
// and verified, its tokens all generated; the report accounts for each.
func TestDisaggCompletesEveryRequest(t *testing.T) {
	reqs := testRequests(t)
	var output int64
	for _, r := range reqs {
		output += int64(max(1, r.OutputLength))
	}
	for _, shape := range [][2]int{{1, 1}, {2, 1}, {2, 2}} {
		cfg := disaggConfig(t, shape[0], shape[1])
		rep := runOK(t, cfg, sliceSource(reqs))
		d := rep.Disagg
		if d == nil {
			t.Fatalf("ctx=%d,gen=%d: Report.Disagg = nil", shape[0], shape[1])
		}
		want := Outcomes{Completed: int64(len(reqs))}
		if diff := cmp.Diff(want, d.Outcomes); diff != "" {
			t.Errorf("ctx=%d,gen=%d: outcomes (-want +got):\n%s", shape[0], shape[1], diff)
		}
		if rep.OutputTokens != output {
			t.Errorf("ctx=%d,gen=%d: output tokens = %d, want %d", shape[0], shape[1], rep.OutputTokens, output)
		}
		if d.KVTransfer.Transfers != int64(len(reqs)) || d.KVTransfer.Bytes == 0 {
			t.Errorf("ctx=%d,gen=%d: transfers %+v, want %d with bytes", shape[0], shape[1], d.KVTransfer, len(reqs))
		}
		if rep.TTFTMS.P50 < d.Context.TTFTMS.P50 {
			t.Errorf("ctx=%d,gen=%d: end-to-end TTFT p50 %v below the context servers' %v", shape[0], shape[1], rep.TTFTMS.P50, d.Context.TTFTMS.P50)
		}
	}
}

// TestDisaggDeterministic: two runs report the same.
func TestDisaggDeterministic(t *testing.T) {
	reqs := testRequests(t)
	run := func() Report {
		cfg := disaggConfig(t, 2, 1)
		cfg.Disagg.ErrorRate = 0.3
		cfg.Faults.Seed = 5
		rep, err := Run(context.Background(), cfg, sliceSource(reqs), nil)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	ignore := cmpopts.IgnoreFields(Report{}, "WallSeconds", "Load", "Save")
	if diff := cmp.Diff(run(), run(), ignore); diff != "" {
		t.Errorf("two runs differ (-first +second):\n%s", diff)
	}
}

// TestDisaggIdleGenerationTimesOutReceive: a receive that would take ten
// minutes (an injected delay) is cancelled by the idle generation server
// at the top of its loop once kv_transfer_timeout_ms passed: the request
// fails with DISAGG_TRANS_ERROR then, and is neither completed late nor
// lost.
func TestDisaggIdleGenerationTimesOutReceive(t *testing.T) {
	cfg := disaggConfig(t, 1, 1)
	cfg.Disagg.TransferTimeout = time.Second
	cfg.Disagg.Delay = 10 * time.Minute
	reqs := sliceSource{{ID: "a", Tokens: tokensOf(0, 100), OutputLength: 5}}
	rep, err := Run(context.Background(), cfg, reqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Disagg.Outcomes, (Outcomes{KVTransferTimeouts: 1}); got != want {
		t.Errorf("outcomes = %+v, want %+v", got, want)
	}
	if len(rep.FailedRequests) != 1 || !strings.Contains(rep.FailedRequests[0].Error, "DISAGG_TRANS_ERROR") {
		t.Errorf("failed requests = %+v, want a's DISAGG_TRANS_ERROR", rep.FailedRequests)
	}
	// the context pass ends the first token; the receive times out 1 s later
	if end := cfg.Clock.ElapsedMS(); end > 1100 {
		t.Errorf("run ended at %.0f ms modelled, want about 1 s after the first token (not the 10 min delay)", end)
	}
}

// TestDisaggSendFailureCancelsGenerationLeg: when the context side fails
// sending, the paired generation leg is cancelled at once: its pages are
// freed and the request fails as a context failure, instead of its
// receive landing (or waiting out its timeout).
func TestDisaggSendFailureCancelsGenerationLeg(t *testing.T) {
	cfg := disaggConfig(t, 1, 1)
	cfg.Disagg.ErrorRate = 1
	reqs := testRequests(t)
	d, err := newDisagg(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.ctx.c.close(); d.gen.c.close() })
	in := newArrivals(sliceSource(reqs), 0, d.ctx.c.owners[0].cfg.Keys)
	defer in.stop()
	if err := d.loop(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	o := d.out
	if o.completed != 0 || o.contextFailures+o.transferErrors != int64(len(reqs)) || o.contextFailures == 0 || o.timeouts != 0 {
		t.Errorf("outcomes %+v, want every request failed, some on the context side, none timed out", o)
	}
	if ce := d.ctx.c.owners[0]; ce.kv.available() != ce.pages.blocks {
		t.Errorf("context server: %d of %d blocks available, want every one (no hold left)", ce.kv.available(), ce.pages.blocks)
	}
	ge := d.gen.c.owners[0]
	if ge.kv.available() != ge.pages.blocks || ge.reserved != 0 || ge.counts.outputTokens != 0 {
		t.Errorf("generation server: %d of %d blocks available, %d reserved, %d tokens out; want every block, none, none",
			ge.kv.available(), ge.pages.blocks, ge.reserved, ge.counts.outputTokens)
	}
}

// TestDisaggOutcomes: each request ends in exactly one outcome, whatever
// ends it, and none is lost.
func TestDisaggOutcomes(t *testing.T) {
	tests := []struct {
		name  string
		reqs  sliceSource
		tweak func(*DisaggConfig)
		want  Outcomes
	}{
		{"completed", sliceSource{{ID: "a", Tokens: tokensOf(0, 50), OutputLength: 3}}, nil, Outcomes{Completed: 1}},
		{"one token, no generation leg", sliceSource{{ID: "a", Tokens: tokensOf(0, 50), OutputLength: 1}}, nil, Outcomes{Completed: 1}},
		{"refused by the context server", sliceSource{{ID: "a"}}, nil, Outcomes{ContextFailures: 1}},
		{"too large for a generation server", sliceSource{{ID: "a", Tokens: tokensOf(0, 300), OutputLength: 400}}, nil, Outcomes{GenerationFailures: 1}},
		{"receive error", sliceSource{{ID: "a", Tokens: tokensOf(0, 50), OutputLength: 3}},
			func(d *DisaggConfig) { d.ErrorRate = 1 }, Outcomes{KVTransferErrors: 1}},
		{"timeout", sliceSource{{ID: "a", Tokens: tokensOf(0, 50), OutputLength: 3}},
			func(d *DisaggConfig) { d.Delay, d.TransferTimeout = time.Minute, time.Second }, Outcomes{KVTransferTimeouts: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := disaggConfig(t, 1, 1)
			if tt.tweak != nil {
				tt.tweak(&cfg.Disagg)
			}
			rep, err := Run(context.Background(), cfg, tt.reqs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, rep.Disagg.Outcomes); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			if rep.Completed+rep.Failed != rep.Requests {
				t.Errorf("%d completed + %d failed, want the %d requests", rep.Completed, rep.Failed, rep.Requests)
			}
		})
	}
}

// TestDisaggFaultsLoseNoRequest: under transfer errors, delays and a
// short timeout, with closed-loop clients, every request ends in one
// outcome.
func TestDisaggFaultsLoseNoRequest(t *testing.T) {
	cfg := disaggConfig(t, 2, 2)
	cfg.Disagg.ErrorRate, cfg.Disagg.Delay, cfg.Disagg.TransferTimeout = 0.3, 4*time.Millisecond, 6*time.Millisecond
	cfg.Disagg.TransferGBps = 0.001
	cfg.Concurrency = 4
	reqs := testRequests(t)
	rep, err := Run(context.Background(), cfg, sliceSource(reqs), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Disagg.Outcomes
	if o.Lost != 0 || o.Completed+o.KVTransferTimeouts+o.KVTransferErrors+o.ContextFailures+o.GenerationFailures != int64(len(reqs)) {
		t.Errorf("outcomes %+v, want the %d requests each in one, none lost", o, len(reqs))
	}
	if o.Completed == 0 || o.KVTransferTimeouts == 0 || o.KVTransferErrors+o.ContextFailures == 0 {
		t.Errorf("outcomes %+v, want some completed, timed out and failed", o)
	}
}

// TestDisaggVerifiesTransferredKV: a page that changed on the context
// server before its transfer is a verification mismatch on the generation
// server.
func TestDisaggVerifiesTransferredKV(t *testing.T) {
	cfg := disaggConfig(t, 1, 1)
	d, err := newDisagg(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.ctx.c.close(); d.gen.c.close() })
	ce := d.ctx.c.owners[0]
	handoff := ce.onFinish
	ce.onFinish = func(r *request) {
		handoff(r)
		if r.held {
			ce.pages.Page(0, r.alloc.blocks[0])[0] ^= 1
		}
	}
	in := newArrivals(sliceSource{{ID: "a", Tokens: tokensOf(0, 50), OutputLength: 3}}, 0, ce.cfg.Keys)
	defer in.stop()
	if err := d.loop(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	if got := d.gen.c.owners[0].counts.mismatches; got != 1 {
		t.Errorf("generation server mismatches = %d, want 1", got)
	}
}
