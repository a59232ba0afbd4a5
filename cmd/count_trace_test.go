package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kvctl/kvctl/workload"
)

// eachOnly hides a source's type, so that countSource reads it through
// Each.
type eachOnly struct{ workload.Source }

// A Mooncake trace is counted from its records as Each's requests count it,
// bad lines included.
func TestCountTraceMatchesEach(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	text := `{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}` + "\n" +
		`{"timestamp": 1, "input_length": 600, "output_length": 5, "hash_ids": [0]}` + "\n"
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"../testdata/trace-small.jsonl", bad} {
		src, err := workload.Open(path, "mooncake")
		if err != nil {
			t.Fatal(err)
		}
		n, ok, err := countTrace(context.Background(), src)
		if !ok {
			t.Fatalf("countTrace(%s) did not count a mooncake trace", path)
		}
		want, wantErr := countSource(context.Background(), eachOnly{src})
		if n != want || (err == nil) != (wantErr == nil) ||
			errors.Is(err, workload.ErrBadInput) != errors.Is(wantErr, workload.ErrBadInput) {
			t.Errorf("countTrace(%s) = %+v, %v, want %+v, %v as Each counts", path, n, err, want, wantErr)
		}
		if path != bad && (n.outputTokens <= 0 || n.outputTokens >= n.tokens) {
			t.Errorf("countTrace(%s) = %+v: output tokens not a part of the tokens", path, n)
		}
		if path == bad && err == nil {
			t.Errorf("countTrace(%s) = nil error, want the bad line's", path)
		}
	}
}

func TestCountTraceOnlyTraces(t *testing.T) {
	src, err := workload.Open("../testdata/requests.jsonl", "auto")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := countTrace(context.Background(), src); ok {
		t.Errorf("countTrace(kvctl requests) counted, want it left to Each")
	}
}
