package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
	"github.com/google/go-cmp/cmp"
)

// redisCommands is the number of commands one kvctl run sends to a fresh
// Redis server.
func redisCommands(t *testing.T, args []string) int64 {
	t.Helper()
	mr := miniredis.RunT(t)
	var commands atomic.Int64
	mr.Server().SetPreHook(func(*server.Peer, string, ...string) bool {
		commands.Add(1)
		return false
	})
	ios, _, errOut := NewTestIOStreams("")
	if got := run(context.Background(), ios, append(args, "--pool", "redis://"+mr.Addr())); got != ExitOK {
		t.Fatalf("run(%q) = %d, want 0; stderr: %s", args, got, errOut)
	}
	return commands.Load()
}

// TestBenchSweepInterrupted: a sweep that Ctrl-C stops in its second run
// prints the first run, marked interrupted, says how many of how many runs
// it finished and exits 130.
func TestBenchSweepInterrupted(t *testing.T) {
	common := []string{"bench", "save", "--device", "host", "--pages", "16", "--warmup", "0", "-o", "json"}
	first := redisCommands(t, append(common, "--page-bytes", "4KiB"))
	addr, ctx := cancellingRedis(t, first+1)
	args := append(common, "--sweep", "page-bytes=4KiB,8KiB,16KiB", "--pool", "redis://"+addr)
	ios, out, errOut := NewTestIOStreams("")
	if got := run(ctx, ios, args); got != ExitInterrupted {
		t.Fatalf("run(%q) = %d, want %d; stderr: %s", args, got, ExitInterrupted, errOut)
	}
	if want := "kvctl: interrupted after 1 of 3 runs\n"; withoutMachineWarnings(errOut.String()) != want {
		t.Errorf("run(%q) stderr = %q, want %q", args, errOut, want)
	}
	var rep struct {
		Runs []struct {
			PageBytes int `json:"page_bytes"`
		} `json:"runs"`
		Interrupted bool `json:"interrupted"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("run(%q) report %s: %v", args, out, err)
	}
	want := rep
	want.Runs, want.Interrupted = []struct {
		PageBytes int `json:"page_bytes"`
	}{{PageBytes: 4096}}, true
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("run(%q) report (-want +got):\n%s", args, diff)
	}
}

// withoutMachineWarnings is a bench's stderr without the warnings that other
// programs kept the machine busy or the hypervisor took its time, which
// depend on the machine the test runs on (docs/bench.md, "Other programs").
func withoutMachineWarnings(stderr string) string {
	var kept []string
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(line, "warning: other programs kept") && !strings.HasPrefix(line, "warning: the hypervisor gave") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}
