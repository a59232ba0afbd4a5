package keylist

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/pooltest"
)

// writeList writes text to a file in a fresh directory and returns its path.
func writeList(t testing.TB, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func listAll(t *testing.T, s *Store, prefix string) []string {
	t.Helper()
	var got []string
	if err := s.List(context.Background(), prefix, func(k string) error { got = append(got, k); return nil }); err != nil {
		t.Fatalf("List(%q) = %v", prefix, err)
	}
	return got
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"plain", "a\nb\n", []string{"a", "b"}},
		{"crlf and blanks", "a\r\n\r\n\nb\r\n", []string{"a", "b"}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"duplicates keep first place", "b\na\nb\n", []string{"b", "a"}},
		{"spaces kept", " a \n", []string{" a "}},
		{"empty", "", nil},
		{"only newlines", "\n\r\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Read("test", strings.NewReader(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if got := listAll(t, s, ""); !cmp.Equal(tt.want, got) {
				t.Errorf("Read(%q) keys = %q, want %q", tt.text, got, tt.want)
			}
			if s.Len() != len(tt.want) {
				t.Errorf("Read(%q).Len() = %d, want %d", tt.text, s.Len(), len(tt.want))
			}
		})
	}
}

func TestOpenURLForms(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "keys.txt")
	if err := os.WriteFile(abs, []byte("k1\nk2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, raw := range []string{"keylist:keys.txt", "keylist:./keys.txt", "keylist://" + abs, "keylist:" + abs, "KEYLIST:keys.txt", "keylist://localhost" + abs} {
		st, err := pool.Open(context.Background(), raw)
		if err != nil {
			t.Errorf("pool.Open(%q) = %v, want no error", raw, err)
			continue
		}
		stat, err := st.Stat(context.Background())
		if err != nil || stat.Keys != 2 || stat.Backend != "keylist" || !stat.ReadOnly {
			t.Errorf("pool.Open(%q).Stat() = %+v, %v, want 2 keys from backend keylist, read-only", raw, stat, err)
		}
	}
	for _, raw := range []string{"keylist:", "keylist:keys.txt?x=1", "keylist:keys.txt#frag", "keylist://host/keys.txt"} {
		if _, err := pool.Open(context.Background(), raw); !errors.Is(err, pool.ErrBadURL) {
			t.Errorf("pool.Open(%q) = %v, want an error wrapping pool.ErrBadURL", raw, err)
		}
	}
}

func TestMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.txt")
	_, err := Load(path)
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, pool.ErrUnreachable) || !strings.Contains(err.Error(), path) {
		t.Errorf("Load(%q) = %v, want an error naming the file and wrapping fs.ErrNotExist and pool.ErrUnreachable", path, err)
	}
}

func TestReads(t *testing.T) {
	path := writeList(t, "p/a\np/b\nq/c\n")
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	keys := []string{"p/a", "q/c", "p/x", "", "p/a"}
	status := make([]int, len(keys))
	if err := s.Exist(ctx, keys, status); err != nil || !cmp.Equal([]int{1, 1, 0, 0, 1}, status) {
		t.Errorf("Exist(%q) = %v, %v, want [1 1 0 0 1], nil", keys, status, err)
	}
	if got := listAll(t, s, "p/"); !cmp.Equal([]string{"p/a", "p/b"}, got) {
		t.Errorf("List(p/) = %q, want [p/a p/b]", got)
	}
	n := make([]int64, 2)
	if err := s.Get(ctx, []string{"p/a", "p/x"}, make([][]byte, 2), n); !errors.Is(err, errors.ErrUnsupported) ||
		!cmp.Equal([]int64{int64(pool.TransferFail), int64(pool.TransferFail)}, n) {
		t.Errorf("Get = %v, %v, want [TransferFail TransferFail] and an error wrapping errors.ErrUnsupported", n, err)
	}
	for name, err := range map[string]error{
		"Put":    s.Put(ctx, []pool.PutItem{{Key: "k", Value: []byte("v")}}, make([]pool.Code, 1)),
		"Remove": s.Remove(ctx, []string{"p/a"}, true, make([]pool.Code, 1)),
	} {
		if !errors.Is(err, pool.ErrReadOnly) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s() = %v, want an error wrapping pool.ErrReadOnly naming %s", name, err, path)
		}
	}
	want := pool.Stat{Backend: "keylist", Address: path, ReadOnly: true, Keys: 3}
	if got, err := s.Stat(ctx); err != nil || !cmp.Equal(want, got) {
		t.Errorf("Stat() = %+v, %v, want %+v", got, err, want)
	}
	stop := errors.New("stop")
	if err := s.List(ctx, "", func(string) error { return stop }); err != stop {
		t.Errorf("List with fn failing = %v, want %v", err, stop)
	}
}

func TestConformance(t *testing.T) {
	pooltest.RunReadOnly(t, func(t *testing.T, keys map[string][]byte) pool.Store {
		var b strings.Builder
		for k := range keys {
			b.WriteString(k + "\n")
		}
		s, err := Load(writeList(t, b.String()))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// FuzzParse checks the listing parser against a plain split.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a\nb\n", "a\r\n\r\nb", "b\na\nb\n", "\r\r\n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var want []string
		seen := map[string]bool{}
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSuffix(l, "\r")
			if l != "" && !seen[l] {
				seen[l] = true
				want = append(want, l)
			}
		}
		s := parse("fuzz", text)
		if !cmp.Equal(want, s.keys) || len(s.set) != len(want) {
			t.Errorf("parse(%q) = %q, want %q", text, s.keys, want)
		}
	})
}

// BenchmarkLoad1M loads a listing of one million kvctl-shaped keys and
// reports the load time (ns/op) and the heap the Store keeps (bytes/key).
func BenchmarkLoad1M(b *testing.B) {
	const n = 1_000_000
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "trtllm/Qwen3-8B/w1r0/lg0/t32b1048576/%032x\n", i*2654435761)
	}
	path := writeList(b, sb.String())
	b.ResetTimer()
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	s, err := Load(path)
	load := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heap-bytes/key")
	b.ReportMetric(load.Seconds()*1000, "ms/load")
	runtime.KeepAlive(s)
}

// BenchmarkExist probes a 1M-key listing, half hits, 256 keys per call.
func BenchmarkExist(b *testing.B) {
	const n = 1_000_000
	var sb strings.Builder
	keys := make([]string, 0, 2*n)
	for i := range n {
		fmt.Fprintf(&sb, "k/%032x\n", i)
		keys = append(keys, fmt.Sprintf("k/%032x", i), fmt.Sprintf("miss/%032x", i))
	}
	s := parse("bench", sb.String())
	status := make([]int, 256)
	ctx := context.Background()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		lo := (i * 256) % (len(keys) - 256)
		if err := s.Exist(ctx, keys[lo:lo+256], status); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)*256/b.Elapsed().Seconds(), "keys/s")
}
