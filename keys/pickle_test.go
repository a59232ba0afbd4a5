package keys

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pyVector is one value of testdata/pickle-vectors.json, written by
// testdata/pickle_vectors.py from CPython's pickle.
type pyVector struct {
	T      string     `json:"t"`
	V      any        `json:"v"`
	Hex    string     `json:"hex"`
	Repeat int        `json:"repeat"`
	Start  int64      `json:"start"`
	N      int        `json:"n"`
	Items  []pyVector `json:"items"`
}

// value turns the vector into the Go value appendPickle takes.
func (p pyVector) value(t *testing.T) any {
	t.Helper()
	rep := max(p.Repeat, 1)
	switch p.T {
	case "none":
		return nil
	case "int":
		return mustInt(t, p.V.(string))
	case "str":
		return strings.Repeat(p.V.(string), rep)
	case "bytes":
		b, err := hex.DecodeString(p.Hex)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Repeat(b, rep)
	case "ints":
		var out []int64
		for _, v := range p.V.([]any) {
			out = append(out, mustInt(t, v.(string)))
		}
		return out
	case "range":
		out := make([]int64, p.N)
		for i := range out {
			out[i] = p.Start + int64(i)
		}
		return out
	case "tuple":
		out := []any{}
		for _, it := range p.Items {
			out = append(out, it.value(t))
		}
		return out
	}
	t.Fatalf("unknown vector type %q", p.T)
	return nil
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestAppendPickleVectors(t *testing.T) {
	data, err := os.ReadFile("testdata/pickle-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []struct {
		Value  pyVector `json:"value"`
		Pickle string   `json:"pickle"`
		Len    int      `json:"len"`
		SHA256 string   `json:"sha256"`
	}
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	for i, vec := range vectors {
		v := vec.Value.value(t)
		got, err := appendPickle(nil, v)
		if err != nil {
			t.Fatalf("vector %d: appendPickle: %v", i, err)
		}
		if vec.Pickle != "" {
			if h := hex.EncodeToString(got); h != vec.Pickle {
				t.Errorf("vector %d: appendPickle(%.80v) = %s, want %s", i, v, h, vec.Pickle)
			}
			continue
		}
		sum := sha256.Sum256(got)
		if len(got) != vec.Len || hex.EncodeToString(sum[:]) != vec.SHA256 {
			t.Errorf("vector %d: appendPickle(%.80v) = %d bytes sha256 %x, want %d bytes sha256 %s", i, v, len(got), sum, vec.Len, vec.SHA256)
		}
	}
	if len(vectors) < 50 {
		t.Errorf("read %d pickle vectors, want at least 50", len(vectors))
	}
}

func TestAppendPickleRefusesOtherTypes(t *testing.T) {
	if _, err := appendPickle(nil, 1.5); err == nil {
		t.Error("appendPickle(1.5) = nil error, want one: floats are not in the recipes")
	}
}

func TestEncodeLong(t *testing.T) {
	tests := []struct {
		v    int64
		want string
	}{
		{0, ""}, {1, "01"}, {127, "7f"}, {128, "8000"}, {255, "ff00"}, {-1, "ff"},
		{-128, "80"}, {-129, "7fff"}, {-256, "00ff"}, {1 << 31, "00000080" + "00"},
		{math.MaxInt64, "ffffffffffffff7f"}, {math.MinInt64, "0000000000000080"},
	}
	for _, tt := range tests {
		if got := hex.EncodeToString(encodeLong(tt.v)); got != tt.want {
			t.Errorf("encodeLong(%d) = %s, want %s", tt.v, got, tt.want)
		}
	}
}

// FuzzAppendPickle reads back what appendPickle writes with unpickle, a
// reader of the protocol's definition, and checks the frames.
func FuzzAppendPickle(f *testing.F) {
	f.Add([]byte{32}, "adapter-A", "salt", int64(7), 3)
	f.Add(bytes.Repeat([]byte{1}, 300), "", "", int64(math.MinInt64), 0)
	f.Add([]byte{}, strings.Repeat("é", 200), "s", int64(1<<40), 20000)
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
		b, err := appendPickle(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		block, err := appendPickleBlock(nil, parent, toks, extra)
		if err != nil || !bytes.Equal(block, b) {
			t.Fatalf("appendPickleBlock = %x, %v; want appendPickle's %x", block, err, b)
		}
		got, err := unpickle(b)
		if err != nil {
			t.Fatalf("unpickle(appendPickle(v)): %v", err)
		}
		if diff := cmp.Diff(normalise(v), got); diff != "" {
			t.Errorf("unpickle(appendPickle(v)) differs (-want +got):\n%s", diff)
		}
	})
}

// normalise spells v as unpickle reads it back: tuples as []any.
func normalise(v any) any {
	switch v := v.(type) {
	case []int64:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = x
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalise(x)
		}
		return out
	case []byte:
		return append([]byte{}, v...)
	}
	return v
}

// unpickle reads the protocol-5 opcodes appendPickle writes, checking
// that frames are well formed and end on opcode boundaries and that the
// memo is written once per memoized object.
func unpickle(b []byte) (any, error) {
	if len(b) < 2 || b[0] != opProto || b[1] != 5 {
		return nil, errors.New("no PROTO 5")
	}
	u := &unpickler{b: b, i: 2, frameEnd: -1}
	return u.run()
}

type unpickler struct {
	b        []byte
	i        int
	frameEnd int // end of the current frame, -1 outside one
	stack    []any
	marks    []int
	memo     int
}

func (u *unpickler) take(n int) ([]byte, error) {
	if n < 0 || u.i+n > len(u.b) {
		return nil, errors.New("truncated")
	}
	if u.frameEnd >= 0 && u.i+n > u.frameEnd {
		return nil, fmt.Errorf("opcode crosses the frame ending at %d", u.frameEnd)
	}
	s := u.b[u.i : u.i+n]
	u.i += n
	return s, nil
}

func (u *unpickler) run() (any, error) {
	for {
		if u.i == u.frameEnd {
			u.frameEnd = -1
		}
		op, err := u.take(1)
		if err != nil {
			return nil, err
		}
		done, err := u.step(op[0])
		if err != nil {
			return nil, fmt.Errorf("at %d (%#x): %w", u.i-1, op[0], err)
		}
		if done {
			if len(u.stack) != 1 || u.i != len(u.b) {
				return nil, fmt.Errorf("STOP with %d values, %d bytes left", len(u.stack), len(u.b)-u.i)
			}
			return u.stack[0], nil
		}
	}
}

func (u *unpickler) sized(n int) (uint64, error) {
	s, err := u.take(n)
	if err != nil {
		return 0, err
	}
	var b [8]byte
	copy(b[:], s)
	return binary.LittleEndian.Uint64(b[:]), nil
}

func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

func (u *unpickler) step(op byte) (bool, error) {
	switch op {
	case opStop:
		return true, nil
	case opFrame:
		if u.frameEnd >= 0 {
			return false, errors.New("frame inside a frame")
		}
		n, err := u.sized(8)
		if err != nil || n < frameMin {
			return false, fmt.Errorf("bad frame length %d: %v", n, err)
		}
		u.frameEnd = u.i + int(n)
	case opNone:
		u.push(nil)
	case opBinInt1, opBinInt2, opBinInt:
		return false, u.smallInt(op)
	case opLong1:
		n, err := u.sized(1)
		if err != nil {
			return false, err
		}
		s, err := u.take(int(n))
		if err != nil || n > 8 || n == 0 {
			return false, fmt.Errorf("LONG1 of %d bytes: %v", n, err)
		}
		var b [8]byte
		fill := byte(0)
		if s[n-1]&0x80 != 0 {
			fill = 0xff
		}
		for i := range b {
			b[i] = fill
		}
		copy(b[:], s)
		u.push(int64(binary.LittleEndian.Uint64(b[:])))
	case opShortBinBytes, opBinBytes, opShortBinUnicod, opBinUnicode:
		return false, u.blob(op)
	case opMemoize:
		if len(u.stack) == 0 {
			return false, errors.New("MEMOIZE on an empty stack")
		}
		u.memo++
	case opEmptyTuple:
		u.push([]any{})
	case opMark:
		u.marks = append(u.marks, len(u.stack))
	case opTuple, opTuple1, opTuple1 + 1, opTuple1 + 2:
		return false, u.tuple(op)
	default:
		return false, errors.New("unknown opcode")
	}
	return false, nil
}

func (u *unpickler) smallInt(op byte) error {
	size := map[byte]int{opBinInt1: 1, opBinInt2: 2, opBinInt: 4}[op]
	v, err := u.sized(size)
	if err != nil {
		return err
	}
	if op == opBinInt {
		u.push(int64(int32(uint32(v))))
	} else {
		u.push(int64(v))
	}
	return nil
}

func (u *unpickler) blob(op byte) error {
	size := 4
	if op == opShortBinBytes || op == opShortBinUnicod {
		size = 1
	}
	n, err := u.sized(size)
	if err != nil {
		return err
	}
	s, err := u.take(int(n))
	if err != nil {
		return err
	}
	if op == opShortBinBytes || op == opBinBytes {
		u.push(append([]byte{}, s...))
	} else {
		u.push(string(s))
	}
	return nil
}

func (u *unpickler) tuple(op byte) error {
	start := len(u.stack) - int(op-opTuple1+1)
	if op == opTuple {
		if len(u.marks) == 0 {
			return errors.New("TUPLE without MARK")
		}
		start, u.marks = u.marks[len(u.marks)-1], u.marks[:len(u.marks)-1]
	}
	if start < 0 {
		return errors.New("tuple longer than the stack")
	}
	items := append([]any{}, u.stack[start:]...)
	u.stack = append(u.stack[:start], items)
	return nil
}
