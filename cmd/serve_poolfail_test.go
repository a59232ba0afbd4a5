package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"

	"github.com/kvctl/kvctl/engine"
)

// TestServeGoesOnWhenRedisFails: the Redis pool fails every command from
// the middle of a replay on. As upstream's connector, serve goes on
// (lookups miss, saves are dropped), prints its report with the failed
// pool calls counted and when they began, warns on stderr, and exits 4.
// (The server answers errors rather than closing, or LOADING: the pool
// retries each read for seconds before it fails the call then.)
func TestServeGoesOnWhenRedisFails(t *testing.T) {
	mr := miniredis.RunT(t)
	var commands atomic.Int64
	mr.Server().SetPreHook(func(c *server.Peer, _ string, _ ...string) bool {
		if commands.Add(1) <= 200 {
			return false
		}
		c.WriteError("ERR the pool is failing")
		return true
	})
	ios, out, errOut := NewTestIOStreams("")
	args := []string{"serve", "--single-rank", "--synthetic", "conversations=20,turns=4,system=256,user=64,output=4",
		"--pool", "redis://" + mr.Addr(), "-o", "json"}
	if got := run(context.Background(), ios, args); got != ExitPoolUnreachable {
		t.Fatalf("run(%q) = %d, want %d; stderr: %s", args, got, ExitPoolUnreachable, errOut)
	}
	var rep struct {
		Requests, Completed     int64
		PoolCallFailures        int64    `json:"pool_call_failures"`
		FirstPoolFailureAtMS    *float64 `json:"first_pool_failure_at_ms"`
		FirstPoolFailureRequest *int64   `json:"first_pool_failure_request"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if rep.Requests != 80 || rep.Completed != rep.Requests {
		t.Errorf("report: %d of %d requests completed, want all 80", rep.Completed, rep.Requests)
	}
	if rep.PoolCallFailures == 0 || rep.FirstPoolFailureAtMS == nil || rep.FirstPoolFailureRequest == nil {
		t.Errorf("report: pool_call_failures %d, first at %v ms, request %v; want failures and when they began",
			rep.PoolCallFailures, rep.FirstPoolFailureAtMS, rep.FirstPoolFailureRequest)
	}
	for _, want := range []string{"warning: pool lookup failed", "pool calls failed, the first at"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// TestCheckServeReport maps a printed report to the exit code: 3 for a
// mismatch or a lost request before 4 for failed pool calls.
func TestCheckServeReport(t *testing.T) {
	at, req := 1234.0, int64(7)
	failed := engine.Report{Outcome: engine.Outcome{Requests: 10, Completed: 10}, PoolCallFailures: 3, FirstPoolFailureAtMS: &at, FirstPoolFailureRequest: &req}
	mismatch := failed
	mismatch.VerifyMismatches = 1
	tests := []struct {
		name string
		rep  engine.Report
		want int
	}{
		{"clean", engine.Report{Outcome: engine.Outcome{Requests: 10, Completed: 10}}, ExitOK},
		{"pool calls failed", failed, ExitPoolUnreachable},
		{"mismatch first", mismatch, ExitVerifyFailed},
	}
	for _, tt := range tests {
		if got := exitCode(checkServeReport(tt.rep)); got != tt.want {
			t.Errorf("%s: exitCode(checkServeReport(...)) = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestServeGoesOnWhenRedisShutsDown shuts the server down mid-run: the
// run goes on without it (the Redis store gives up at once while the
// server is gone), reports the failures and exits 4.
func TestServeGoesOnWhenRedisShutsDown(t *testing.T) {
	mr := miniredis.RunT(t)
	var commands atomic.Int64
	var once sync.Once
	mr.Server().SetPreHook(func(*server.Peer, string, ...string) bool {
		if commands.Add(1) == 200 {
			once.Do(func() { go mr.Close() })
		}
		return false
	})
	ios, out, errOut := NewTestIOStreams("")
	args := []string{"serve", "--single-rank", "--synthetic", "conversations=20,turns=4,system=256,user=64,output=4",
		"--pool", "redis://" + mr.Addr(), "-o", "json"}
	if got := run(context.Background(), ios, args); got != ExitPoolUnreachable {
		t.Fatalf("run(%q) = %d, want %d; stderr: %s", args, got, ExitPoolUnreachable, errOut)
	}
	var rep struct {
		Requests, Completed int64
		PoolCallFailures    int64 `json:"pool_call_failures"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if rep.Requests != 80 || rep.Completed != rep.Requests || rep.PoolCallFailures == 0 {
		t.Errorf("report: %d of %d requests completed, %d pool call failures; want all 80 and failures", rep.Completed, rep.Requests, rep.PoolCallFailures)
	}
}
