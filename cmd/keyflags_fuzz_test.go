package cmd

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/size"
)

// FuzzKeysNumericFlags feeds the keys command's numeric flags through run
// with a short prompt: it must answer within a bound, exit 0 or 2 only,
// and exit 0 only with every value inside its documented range.
func FuzzKeysNumericFlags(f *testing.F) {
	f.Add(int64(32), int64(0), int64(1), int64(0), "7", "64KiB")
	f.Add(int64(1<<61), int64(0), int64(1), int64(0), "0", "64KiB")
	f.Add(int64(32), int64(1<<62), int64(1), int64(0), "010", "100.7")
	f.Add(int64(16), int64(1), int64(4), int64(3), "0x10", "1.5KiB")
	f.Add(int64(-1), int64(-1), int64(1<<61), int64(-1), "-1", "0")
	f.Fuzz(func(t *testing.T, tpb, lookahead, tp, rank int64, lora, bytes string) {
		args := []string{"keys", "--tokens", "-", "--model-key", "m",
			"--tokens-per-block", strconv.FormatInt(tpb, 10),
			"--lookahead", strconv.FormatInt(lookahead, 10),
			"--tp", strconv.FormatInt(tp, 10), "--rank", strconv.FormatInt(rank, 10),
			"--lora-task-id=" + lora, "--layer-group", "0:" + bytes}
		code := runWithin(t, 30*time.Second, args)
		if code != ExitOK && code != ExitUsage {
			t.Fatalf("run(%q) = %d, want %d or %d", args, code, ExitOK, ExitUsage)
		}
		if code == ExitOK && !keysFlagsInRange(tpb, lookahead, tp, rank, lora, bytes) {
			t.Fatalf("run(%q) = %d, want %d: a value is outside its range", args, code, ExitUsage)
		}
	})
}

// runWithin runs args on a three-token prompt and fails t if it does not
// return within limit.
func runWithin(t *testing.T, limit time.Duration, args []string) int {
	t.Helper()
	done := make(chan int, 1)
	go func() {
		ios, _, _ := NewTestIOStreams("[1, 2, 3]")
		done <- run(context.Background(), ios, args)
	}()
	select {
	case code := <-done:
		return code
	case <-time.After(limit):
		t.Fatalf("run(%q) did not return within %v", args, limit)
		return 0
	}
}

// keysFlagsInRange reports whether every value is inside the range the
// flags' help documents.
func keysFlagsInRange(tpb, lookahead, tp, rank int64, lora, bytes string) bool {
	id, err := strconv.ParseInt(lora, 10, 64)
	if err != nil || id < 0 || strconv.FormatInt(id, 10) != lora {
		return false
	}
	n, err := size.Parse(bytes)
	if err != nil || n <= 0 || strings.Contains(bytes, ":") {
		return false
	}
	return tpb >= 1 && tpb <= keys.MaxTokensPerBlock &&
		lookahead >= 0 && lookahead <= keys.MaxLookahead &&
		tp >= 1 && tp <= keys.MaxWorld && rank >= 0 && rank < tp
}
