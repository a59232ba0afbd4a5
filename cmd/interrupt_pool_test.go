package cmd

import (
	"context"
	"encoding/json"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// cancellingRedis is a Redis server that cancels the returned context at
// its after-th command, as a Ctrl-C in the middle of a run would.
func cancellingRedis(t *testing.T, after int64) (addr string, ctx context.Context) {
	mr := miniredis.RunT(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var commands atomic.Int64
	mr.Server().SetPreHook(func(*server.Peer, string, ...string) bool {
		if commands.Add(1) == after {
			cancel()
		}
		return false
	})
	return mr.Addr(), ctx
}

// TestRunInterruptedMidRun: a run cancelled in its middle exits 130, says
// how many of how many requests it got through (the total counted also
// with --pool), and its JSON report says interrupted.
func TestRunInterruptedMidRun(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"serve", []string{"serve", "--single-rank", "--synthetic", "conversations=20,turns=4,system=256,user=64,output=4", "-o", "json"}},
		{"holes probe", []string{"holes", "--trace", "../testdata/trace-small.jsonl", "--tokens-per-block", "32", "--model-key", "m", "-o", "json"}},
	}
	msg := regexp.MustCompile(`kvctl: interrupted after [1-9][0-9,]* of (80|901) requests\n$`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, ctx := cancellingRedis(t, 500)
			args := append(tt.args, "--pool", "redis://"+addr)
			ios, out, errOut := NewTestIOStreams("")
			if got := run(ctx, ios, args); got != ExitInterrupted {
				t.Fatalf("run(%q) = %d, want %d; stderr: %s", args, got, ExitInterrupted, errOut)
			}
			if !msg.MatchString(errOut.String()) {
				t.Errorf("run(%q) stderr = %q, want it to end with %q", args, errOut, msg)
			}
			var rep struct{ Interrupted bool }
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || !rep.Interrupted {
				t.Errorf("run(%q) report = %v, %s; want \"interrupted\": true", args, err, out)
			}
		})
	}
}
