package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestProfilesWritten runs a command with every profiling flag and reads
// each file back: the CPU, memory and mutex profiles are gzipped pprof
// protobufs naming their sample types, the trace starts with the Go
// execution trace header.
func TestProfilesWritten(t *testing.T) {
	dir := t.TempDir()
	cpu, trace, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "trace.out"), filepath.Join(dir, "mem.prof")
	mutex := filepath.Join(dir, "mutex.prof")
	ios, _, errOut := NewTestIOStreams("[1, 2, 3, 4, 5, 6, 7, 8]")
	args := []string{"keys", "--tokens", "-", "--tokens-per-block", "4", "--cpuprofile", cpu, "--exectrace", trace, "--memprofile", mem, "--mutexprofile", mutex}
	if code := run(context.Background(), ios, args); code != ExitOK {
		t.Fatalf("run(%q) = %d, want %d; stderr: %s", args, code, ExitOK, errOut)
	}
	for path, want := range map[string][]string{
		cpu:   {"samples", "cpu", "nanoseconds"},
		mem:   {"alloc_objects", "alloc_space", "inuse_space", "bytes"},
		mutex: {"contentions", "count", "delay", "nanoseconds"},
	} {
		body := gunzipFile(t, path)
		for _, w := range want {
			if !bytes.Contains(body, []byte(w)) {
				t.Errorf("%s names no sample type or unit %q", filepath.Base(path), w)
			}
		}
	}
	head, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(head, []byte("go 1.")) {
		t.Errorf("trace.out starts %q, want a Go execution trace header", head[:min(len(head), 16)])
	}
}

// TestProfilePathUnwritable is a usage error naming the flag, and the
// command does not run.
func TestProfilePathUnwritable(t *testing.T) {
	for _, flag := range []string{"--cpuprofile", "--exectrace", "--memprofile", "--mutexprofile"} {
		ios, out, errOut := NewTestIOStreams("[1, 2, 3, 4]")
		args := []string{"keys", "--tokens", "-", "--tokens-per-block", "4", flag, filepath.Join(t.TempDir(), "no", "such", "dir", "f")}
		if code := run(context.Background(), ios, args); code != ExitUsage {
			t.Errorf("run(%q) = %d, want %d", args, code, ExitUsage)
		}
		if !bytes.Contains(errOut.Bytes(), []byte(flag)) {
			t.Errorf("run(%q) stderr %q does not name %s", args, errOut, flag)
		}
		if out.Len() != 0 {
			t.Errorf("run(%q) printed %q, want nothing: the command must not run", args, out)
		}
	}
}

func gunzipFile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return body
}
