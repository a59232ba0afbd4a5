package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvctl/kvctl/workload"
)

func TestRequestCountOfFile(t *testing.T) {
	long := `{"id":"x","tokens":[` + strings.Repeat("1,", 100_000) + `1]}`
	tests := []struct {
		name, text string
		want       int64
	}{
		{"empty", "", 0},
		{"one line, no newline", `{"hash_ids":[1]}`, 1},
		{"blank lines skipped", "\n{}\n  \t\n{}\n\n", 2},
		{"CRLF", "{}\r\n{}\r\n", 2},
		{"lines longer than a read", long + "\n" + long + "\n" + long, 3},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := requestCount(context.Background(), &workload.FileSource{Path: path})
		if err != nil || got != tt.want {
			t.Errorf("%s: requestCount = %d, %v, want %d", tt.name, got, err, tt.want)
		}
	}
}

func TestRequestCountOfTraceMatchesReplay(t *testing.T) {
	src, err := workload.Open("../testdata/trace-small.jsonl", "auto")
	if err != nil {
		t.Fatal(err)
	}
	got, err := requestCount(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	n, err := countSource(context.Background(), src)
	if want := n.requests; err != nil || got != want {
		t.Errorf("requestCount(trace-small) = %d, want %d requests as Each reads them (%v)", got, want, err)
	}
}

func TestRequestCountCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := requestCount(ctx, &workload.FileSource{Path: "../testdata/trace-small.jsonl"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("requestCount(cancelled) error = %v, want context.Canceled", err)
	}
}
