package workload

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/kvctl/kvctl/internal/hugepages"
)

// Requests read into token buffers whose arrays are given back once read
// are parsed into those arrays again: a stream of many requests takes
// few arrays, not one each, and every request's tokens are its own.
func TestTokenBuffersReuseArraysGivenBack(t *testing.T) {
	var in strings.Builder
	var want [][]int64
	for i := range 3000 {
		tokens := make([]int64, 1+i%50)
		for j := range tokens {
			tokens[j] = int64(i*100 + j)
		}
		line, _ := json.Marshal(Request{Tokens: tokens})
		in.Write(line)
		in.WriteString("\n")
		want = append(want, tokens)
	}
	bufs := NewTokenBuffers()
	arrays := map[*int64]bool{}
	i := 0
	// one line a batch: the lines parsed ahead of fn are a few batches
	r := iotest.OneByteReader(strings.NewReader(in.String()))
	err := ReadRequestsInto(r, "r", bufs, func(_ int, r Request) error {
		if !slices.Equal(r.Tokens, want[i]) {
			t.Fatalf("request %d: tokens %v, want %v", i, r.Tokens, want[i])
		}
		arrays[unsafe.SliceData(r.Tokens)] = true
		i++
		bufs.Give(r.Tokens)
		return nil
	})
	if err != nil || i != len(want) {
		t.Fatalf("ReadRequestsInto = %d requests, %v", i, err)
	}
	if len(arrays) > len(want)/4 {
		t.Errorf("%d requests parsed into %d arrays, want far fewer", len(want), len(arrays))
	}
}

// Arrays given back are kept up to keepTokens tokens; the rest is left to
// the garbage collector.
func TestTokenBuffersKeepABoundedAmount(t *testing.T) {
	bufs := NewTokenBuffers()
	for range 3 * keepTokens / (1 << 20) {
		bufs.Give(make([]int64, 0, 1<<20))
	}
	if bufs.kept > keepTokens || len(bufs.free) != keepTokens/(1<<20) {
		t.Errorf("kept %d tokens in %d arrays, want at most %d", bufs.kept, len(bufs.free), keepTokens)
	}
	if got := bufs.take(1 << 20); cap(got) != 1<<20 || bufs.kept != keepTokens-1<<20 {
		t.Errorf("take after Give: cap %d, kept %d", cap(got), bufs.kept)
	}
	bufs.Give(nil) // nothing to keep
	if bufs.kept != keepTokens-1<<20 {
		t.Errorf("Give(nil) changed what is kept: %d", bufs.kept)
	}
}

// An array too small for the next request is not reused for it; new
// arrays come from allocations advised onto huge pages.
func TestTokenBuffersNewArraysFromHugePageSlabs(t *testing.T) {
	bufs := NewTokenBuffers()
	bufs.Give(make([]int64, 0, 4))
	got := bufs.take(100)
	if cap(got) < 100 || len(bufs.free) != 0 {
		t.Fatalf("take(100) = cap %d with %d arrays kept", cap(got), len(bufs.free))
	}
	if hugepages.Mode() != "madvise" {
		t.Skipf("transparent huge pages: %q", hugepages.Mode())
	}
	slab := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(got))), 4*hugepages.Size)
	ok, err := hugepages.Eligible(slab[hugepages.Size*2:])
	if err != nil {
		t.Skip(err)
	}
	if !ok {
		t.Error("a slab of token arrays is not eligible for huge pages")
	}
}

// A nil *TokenBuffers allocates each array, as ReadRequests does.
func TestTokenBuffersNil(t *testing.T) {
	var bufs *TokenBuffers
	if got := bufs.take(7); len(got) != 0 || cap(got) != 7 {
		t.Errorf("nil take(7) = len %d cap %d", len(got), cap(got))
	}
}

// Lines are numbered across batches of any size, blank lines counted, and
// a bad line's error names its line, however the input is cut.
func TestReadRequestsNumbersLinesAcrossBatches(t *testing.T) {
	var in strings.Builder
	var lines []int
	line := 1
	for i := range 400 {
		if i%5 == 0 {
			in.WriteString("\n")
			line++
		}
		fmt.Fprintf(&in, `{"tokens":[%d]}`+"\n", i)
		lines = append(lines, line)
		line++
	}
	in.WriteString(`{"tokens":[-]}` + "\n")
	for _, name := range []string{"half", "one byte"} {
		{
			oneByte := name == "one byte"
			var got []int
			var ids []string
			var r = iotest.HalfReader(strings.NewReader(in.String()))
			if oneByte {
				r = iotest.OneByteReader(strings.NewReader(in.String()))
			}
			err := ReadRequests(r, "r.jsonl", func(l int, req Request) error {
				got, ids = append(got, l), append(ids, req.ID)
				return nil
			})
			if !slices.Equal(got, lines) {
				t.Errorf("%s, one byte %v: lines %v, want %v", name, oneByte, got[:min(len(got), 10)], lines[:10])
			}
			if ids[399] != fmt.Sprint("line-", lines[399]) {
				t.Errorf("%s, one byte %v: the last request's default ID is %q, want line-%d", name, oneByte, ids[399], lines[399])
			}
			if want := fmt.Sprintf(`"r.jsonl": line %d:`, line); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, one byte %v: error %v, want one naming %s", name, oneByte, err, want)
			}
		}
	}
}
