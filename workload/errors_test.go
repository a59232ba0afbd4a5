package workload

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// TestErrBadInput checks that errors about what an input says wrap
// ErrBadInput and failures to read it do not.
func TestErrBadInput(t *testing.T) {
	readErr := errors.New("disk on fire")
	tests := []struct {
		name string
		read func(r io.Reader) error
		in   io.Reader
		want bool
	}{
		{"requests: unknown field", readRequests, strings.NewReader(`{"tokens": [1], "nope": 1}` + "\n"), true},
		{"requests: token outside int64", readRequests, strings.NewReader(`{"tokens": [1e30]}`), true},
		{"requests: read fails", readRequests, iotest.ErrReader(readErr), false},
		{"trace: missing field", readTrace, strings.NewReader(`{"timestamp": 0}`), true},
		{"trace: time goes back", readTrace, strings.NewReader(traceLine(5) + traceLine(4)), true},
		{"trace: line too long", readTrace, strings.NewReader(strings.Repeat(" ", maxTraceLine+1) + "x"), true},
		{"trace: read fails", readTrace, iotest.ErrReader(readErr), false},
	}
	for _, tt := range tests {
		err := tt.read(tt.in)
		if err == nil {
			t.Errorf("%s: read = nil, want an error", tt.name)
			continue
		}
		if got := errors.Is(err, ErrBadInput); got != tt.want {
			t.Errorf("%s: errors.Is(%v, ErrBadInput) = %v, want %v", tt.name, err, got, tt.want)
		}
	}
}

func readRequests(r io.Reader) error {
	return ReadRequests(r, "r.jsonl", func(int, Request) error { return nil })
}

func readTrace(r io.Reader) error {
	return ReadTrace(r, "t.jsonl", func(int, TraceRecord) error { return nil })
}

func traceLine(ts int) string {
	return `{"timestamp": ` + string(rune('0'+ts)) + `, "input_length": 1, "output_length": 1, "hash_ids": [0]}` + "\n"
}

// TestOpenBadInput checks that Open's format detection says a file it
// cannot make sense of is bad input, and a missing file is not.
func TestOpenBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
		want          bool
	}{
		{"empty.jsonl", "\n\n", true},
		{"neither.jsonl", `{"id": "x"}` + "\n", true},
		{"not-json.jsonl", "hello\n", true},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path, FormatAuto)
		if got := errors.Is(err, ErrBadInput); got != tt.want {
			t.Errorf("Open(%s) = %v, errors.Is ErrBadInput %v, want %v", tt.name, err, got, tt.want)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing.jsonl"), FormatAuto); err == nil || errors.Is(err, ErrBadInput) {
		t.Errorf("Open(missing) = %v, want an error not wrapping ErrBadInput", err)
	}
}
