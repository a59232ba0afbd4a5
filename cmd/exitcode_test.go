package cmd

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"testing"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mooncakestore"
	"github.com/kvctl/kvctl/transfer"
	"github.com/kvctl/kvctl/workload"
)

func TestExitCodeMapping(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitFailure},
		{usagef("bad flag"), ExitUsage},
		{fmt.Errorf("opening: %w", pool.ErrBadURL), ExitUsage},
		{fmt.Errorf("--tokens-per-block: %w", keys.ErrBadSettings), ExitUsage},
		{fmt.Errorf("reading tokens: %w", keys.ErrBadInput), ExitUsage},
		{fmt.Errorf("reading requests: %w", workload.ErrBadInput), ExitUsage},
		{errors.New("reading requests from \"r.jsonl\": line 3: input/output error"), ExitFailure},
		{fmt.Errorf("serve: %w", engine.ErrBadConfig), ExitUsage},
		{fmt.Errorf("faults: %w", connector.ErrBadConfig), ExitUsage},
		{&verifyError{err: errors.New("differs")}, ExitVerifyFailed},
		{fmt.Errorf("bench load: %w", transfer.ErrVerifyFailed), ExitVerifyFailed},
		{fmt.Errorf("dial: %w", pool.ErrUnreachable), ExitPoolUnreachable},
		{fmt.Errorf("request %q: %w", "a", pool.ErrUnreachable), ExitPoolUnreachable},
		{fmt.Errorf("opening: %w", mooncakestore.ErrNoLibrary), ExitPoolUnreachable},
		{&gpuUnavailable{err: errors.New("no driver")}, ExitGPUUnavailable},
		{fmt.Errorf("opening cuda:0: %w", cuda.ErrNoDriver), ExitGPUUnavailable},
		{fmt.Errorf("run: %w", context.Canceled), ExitInterrupted},
		{fmt.Errorf("put: %w", pool.ErrReadOnly), ExitFailure},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// TestRunExitCodes drives whole commands to each documented exit code.
func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"version"}, ExitOK},
		{[]string{"keys", "--tokens", "-", "--tokens-per-block", "0"}, ExitUsage},
		{[]string{"serve", "--single-rank", "--synthetic", "conversations=1", "--fault-missing-rate", "1.5"}, ExitUsage},
		{[]string{"serve", "--single-rank", "--synthetic", "conversations=1", "--attention-dp", "2", "--tp", "3"}, ExitUsage},
		{[]string{"serve", "--single-rank", "--synthetic", "conversations=1", "--async-load", "--tp", "2"}, ExitUsage},
		{[]string{"nosuchcommand"}, ExitUsage},
		{[]string{"pool", "stat", "--pool", "redis://127.0.0.1:1"}, ExitPoolUnreachable},
		{[]string{"pool", "put", "--pool", "keylist:../testdata/requests.jsonl", "k", "--from", "../testdata/prompt-64.json"}, ExitFailure},
	}
	if _, err := exec.LookPath("nvidia-smi"); err != nil {
		tests = append(tests, struct {
			args []string
			want int
		}{[]string{"bench", "load", "--device", "cuda", "--bytes", "1MiB"}, ExitGPUUnavailable})
	}
	for _, tt := range tests {
		ios, _, errOut := NewTestIOStreams("")
		if got := run(context.Background(), ios, tt.args); got != tt.want {
			t.Errorf("run(%q) = %d, want %d; stderr: %s", tt.args, got, tt.want, errOut)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ios, _, _ := NewTestIOStreams("")
	if got := run(ctx, ios, []string{"holes", "--simulate", "--trace", "../workload/testdata/trace-conversation-head.jsonl", "--tokens-per-block", "32", "--layer-group", "0:64KiB", "--capacity", "1GiB"}); got != ExitInterrupted {
		t.Errorf("run(cancelled holes --simulate) = %d, want %d", got, ExitInterrupted)
	}
}
