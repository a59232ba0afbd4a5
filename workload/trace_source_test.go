package workload

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenMooncake(t *testing.T) {
	for _, format := range []string{"", FormatAuto, FormatMooncake} {
		src, err := Open(headTrace, format)
		if err != nil {
			t.Fatalf("Open(%s, %q) = %v", headTrace, format, err)
		}
		if src.Format != FormatMooncake || src.Name() != headTrace {
			t.Errorf("Open(%s, %q) format, name = %q, %q, want mooncake, the path", headTrace, format, src.Format, src.Name())
		}
	}
	src, _ := Open(headTrace, FormatAuto)
	reqs, err := Collect(src)
	if err != nil || len(reqs) != 200 {
		t.Fatalf("Collect(head) = %d requests, %v, want 200", len(reqs), err)
	}
	recs := readHead(t)
	for i, req := range reqs {
		rec := recs[i]
		if req.ID != "t"+strconv.Itoa(i+1) || req.ArrivalMS != rec.Timestamp || req.OutputLength != int(rec.OutputLength) ||
			int64(len(req.Tokens)) != rec.InputLength {
			t.Fatalf("request %d = %s at %d, output %d, %d tokens, want t%d at %d, output %d, %d tokens", i, req.ID,
				req.ArrivalMS, req.OutputLength, len(req.Tokens), i+1, rec.Timestamp, rec.OutputLength, rec.InputLength)
		}
	}
	// The first two requests share hash id 0 only.
	if !slices.Equal(reqs[0].Tokens[:512], reqs[1].Tokens[:512]) || slices.Equal(reqs[0].Tokens[512:1024], reqs[1].Tokens[512:1024]) {
		t.Errorf("requests t1 and t2 must share exactly their first 512 tokens")
	}
}

func TestOpenReuseTokens(t *testing.T) {
	fresh, _ := Open(headTrace, FormatMooncake)
	want, err := Collect(fresh)
	if err != nil {
		t.Fatal(err)
	}
	reuse := &FileSource{Path: headTrace, Format: FormatMooncake, ReuseTokens: true}
	i := 0
	var first *int64
	err = reuse.Each(func(req Request) error {
		if !slices.Equal(req.Tokens, want[i].Tokens) {
			t.Errorf("request %d with ReuseTokens differs from a fresh read", i)
		}
		if i == 0 {
			first = &req.Tokens[0]
		}
		i++
		return nil
	})
	if err != nil || i != 200 || first == nil {
		t.Errorf("Each with ReuseTokens = %v after %d requests, want nil after 200", err, i)
	}
}

// With Tokens set, every request's tokens come from the token buffers and
// those given back are used again, for a trace and a request file alike;
// the tokens are the same as a fresh read's.
func TestEachTakesTokensFromBuffers(t *testing.T) {
	requests := writeFile(t, "r.jsonl", strings.Repeat(`{"tokens":[1,2,3]}`+"\n"+`{"tokens":[4,5]}`+"\n", 50))
	for _, path := range []string{headTrace, requests} {
		fresh, _ := Open(path, FormatAuto)
		want, err := Collect(fresh)
		if err != nil {
			t.Fatal(err)
		}
		src, _ := Open(path, FormatAuto)
		src.Tokens = NewTokenBuffers()
		arrays := map[*int64]bool{}
		i := 0
		err = src.Each(func(req Request) error {
			if !slices.Equal(req.Tokens, want[i].Tokens) {
				t.Errorf("%s: request %d from token buffers differs from a fresh read", path, i)
			}
			arrays[&req.Tokens[0]] = true
			src.Tokens.Give(req.Tokens)
			i++
			return nil
		})
		if err != nil || i != len(want) {
			t.Fatalf("%s: Each = %v after %d requests, want nil after %d", path, err, i, len(want))
		}
		// A trace's tokens are made as each request is read: a new array
		// only for a request longer than those kept (a request file's
		// lines are parsed ahead, a batch at a time: TokenBuffers' tests).
		if path == headTrace && len(arrays) > i/10 {
			t.Errorf("%s: %d requests given back at once took %d arrays, want far fewer", path, i, len(arrays))
		}
	}
}

func TestOpenKvctl(t *testing.T) {
	p := writeFile(t, "r.jsonl", "\n"+`{"id": "a", "tokens": [1, 2, 3]}`+"\n"+`{"id": "b", "tokens": [4]}`+"\n")
	src, err := Open(p, FormatAuto)
	if err != nil || src.Format != FormatKvctl {
		t.Fatalf("Open(kvctl file, auto) = %+v, %v, want format kvctl", src, err)
	}
	reqs, err := Collect(src)
	if err != nil || len(reqs) != 2 || reqs[0].ID != "a" || !slices.Equal(reqs[1].Tokens, []int64{4}) {
		t.Errorf("Collect(kvctl file) = %+v, %v, want requests a and b", reqs, err)
	}
	if err := src.EachTrace(func(int, TraceRecord) error { return nil }); err == nil {
		t.Errorf("EachTrace on a kvctl file = nil, want an error")
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name, content, format, wantErr string
	}{
		{"empty", "\n \n", FormatAuto, "no requests"},
		{"neither", `{"id": "x"}`, FormatAuto, "neither hash_ids (mooncake) nor tokens (kvctl)"},
		{"not json", "hello", FormatAuto, "cannot tell the format"},
		{"bad format", "{}", "csv", `unknown request format "csv"`},
	}
	for _, tt := range tests {
		p := writeFile(t, "f.jsonl", tt.content)
		_, err := Open(p, tt.format)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: Open = %v, want an error containing %q", tt.name, err, tt.wantErr)
		}
	}
	for _, format := range []string{FormatAuto, FormatKvctl, FormatMooncake} {
		if _, err := Open(filepath.Join(t.TempDir(), "missing"), format); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Open(missing, %s) = %v, want ErrNotExist", format, err)
		}
	}
}

func TestEachStopsOnError(t *testing.T) {
	stop := errors.New("stop")
	src, _ := Open(headTrace, FormatAuto)
	n := 0
	err := src.Each(func(Request) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("Each with a callback failing at 3 = %v after %d, want %v after 3", err, n, stop)
	}
}

// ReuseTokens over a request file parses its lines into arrays given back
// once fn returns: later batches of lines reuse them, and every request's
// tokens are its own while fn runs.
func TestReuseTokensOverARequestFile(t *testing.T) {
	var in strings.Builder
	const lines, tokens = 1500, 5000 // about 100 lines a read buffer
	for i := range lines {
		in.WriteString(`{"tokens":[` + strconv.Itoa(i))
		for range tokens - 1 {
			in.WriteString(",1")
		}
		in.WriteString("]}\n")
	}
	src := &FileSource{Path: writeFile(t, "r.jsonl", in.String()), Format: FormatKvctl, ReuseTokens: true}
	arrays := map[*int64]bool{}
	n := 0
	err := src.Each(func(req Request) error {
		if len(req.Tokens) != tokens || req.Tokens[0] != int64(n) || req.Tokens[tokens-1] != 1 {
			t.Fatalf("request %d: %d tokens from %d", n, len(req.Tokens), req.Tokens[0])
		}
		arrays[&req.Tokens[0]] = true
		n++
		return nil
	})
	if err != nil || n != lines {
		t.Fatalf("Each = %v after %d requests, want nil after %d", err, n, lines)
	}
	if len(arrays) > n/2 {
		t.Errorf("%d requests took %d arrays, want far fewer", n, len(arrays))
	}
}
