package keys

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

// libraryCBOR is fxamacker/cbor with its core deterministic options, the
// encoding appendCBOR must match byte for byte.
var libraryCBOR = func() cbor.EncMode {
	m, err := cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// cborValues are values of every shape the recipes hash, every head size.
func cborValues() []any {
	var edges []int64
	for _, e := range []int64{0, 23, 24, 0xff, 0x100, 0xffff, 0x10000, 0xffffffff, 0x100000000, math.MaxInt64} {
		edges = append(edges, e, -e, -e-1)
	}
	edges = append(edges, math.MinInt64)
	return []any{
		nil, int64(0), int64(-1), int64(math.MinInt64), []byte{}, []byte("parent"),
		bytes.Repeat([]byte{7}, 70000), "", "0", "adapter-é", strings.Repeat("s", 300),
		[]int64{}, edges, []any{}, []any{[]byte{1}, edges, nil},
		[]any{bytes.Repeat([]byte{2}, 32), []int64{1, 2, 3}, []any{"lora", "salt"}},
	}
}

// TestAppendCBORMatchesLibrary compares appendCBOR with fxamacker/cbor
// on every shape, and appendCBORBlock with both.
func TestAppendCBORMatchesLibrary(t *testing.T) {
	for _, v := range cborValues() {
		want, err := libraryCBOR.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendCBOR(nil, v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("appendCBOR(%.60v) = %x, %v; want %x", v, got, err, want)
		}
	}
}

func TestAppendCBORRefusesOtherTypes(t *testing.T) {
	if _, err := appendCBOR(nil, 1.5); err == nil {
		t.Error("appendCBOR(1.5) = nil error, want one: floats are not in the recipes")
	}
}

// FuzzAppendCBOR checks appendCBOR and appendCBORBlock against the
// library on vLLM's block tuples.
func FuzzAppendCBOR(f *testing.F) {
	f.Add([]byte{32}, "adapter-A", "salt", int64(7), 3)
	f.Add(bytes.Repeat([]byte{1}, 300), "", "", int64(math.MinInt64), 0)
	f.Add([]byte{}, strings.Repeat("é", 200), "", int64(1<<40), 20000)
	f.Fuzz(func(t *testing.T, parent []byte, lora, salt string, tok int64, n int) {
		n = min(max(n, 0), 40000)
		toks := make([]int64, n)
		for i := range toks {
			toks[i] = tok * int64(i+1)
		}
		var extra any
		if lora != "" || salt != "" {
			extra = []any{lora, salt}
		}
		v := []any{parent, toks, extra}
		want, err := libraryCBOR.Marshal(v)
		if err != nil {
			t.Skip(err) // the library refuses text that is not UTF-8
		}
		got, err := appendCBOR(nil, v)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("appendCBOR = %x, %v; want %x", got, err, want)
		}
		block, err := appendCBORBlock(nil, parent, toks, extra)
		if err != nil || !bytes.Equal(block, want) {
			t.Fatalf("appendCBORBlock = %x, %v; want %x", block, err, want)
		}
	})
}
