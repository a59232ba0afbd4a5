package keys

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// classesByByte is the definition classify must meet, one byte at a time.
func classesByByte(data []byte, blocks int) []byteClasses {
	out := make([]byteClasses, blocks)
	for i, c := range data[:64*blocks] {
		bit := uint64(1) << (i % 64)
		m := &out[i/64]
		if c >= '0' && c <= '9' {
			m.digit |= bit
		}
		if c == '0' {
			m.zero |= bit
		}
		if c == ',' {
			m.comma |= bit
		}
		if c == ' ' {
			m.space |= bit
		}
	}
	return out
}

// checkClassify compares classify with classesByByte on every whole
// block of data.
func checkClassify(t *testing.T, data []byte) {
	t.Helper()
	if !useAVX2 {
		t.Skip("classify needs AVX2, BMI1 and BMI2")
	}
	blocks := len(data) / 64
	want := classesByByte(data, blocks)
	got := make([]byteClasses, blocks)
	classify(got, data)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(byteClasses{})); diff != "" {
		t.Fatalf("classify(%q) differs (-want +got):\n%s", data, diff)
	}
}

// classAlphabet is bytes near the class boundaries, and some far off.
const classAlphabet = "0123456789/:,+- \t\n\r[]\"e.x\x00\x80\xb0\xac\xa0\xff"

func TestClassify(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		data := make([]byte, 64*rng.IntN(9)+rng.IntN(64))
		for i := range data {
			data[i] = classAlphabet[rng.IntN(len(classAlphabet))]
		}
		checkClassify(t, data)
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	checkClassify(t, all)
}

func FuzzClassify(f *testing.F) {
	f.Add(bytes.Repeat([]byte("12345, 0,9/:"), 20))
	f.Fuzz(func(t *testing.T, data []byte) { checkClassify(t, data) })
}

// The fast paths, each of which must read any input as the careful path
// alone does.
var fastPathNames = map[fastPaths]string{masksAndSWAR: "masks and SWAR", swarOnly: "SWAR"}

// checkTokenPaths parses data through every path, from a dst of
// capacity room, and wants the same tokens, length and error from each.
// Without AVX2 the masks path is the SWAR one.
func checkTokenPaths(t *testing.T, data []byte, room int) {
	t.Helper()
	want, wantN, wantErr := appendJSONTokens(nil, data, carefulOnly)
	for p, name := range fastPathNames {
		got, n, err := appendJSONTokens(make([]int64, 0, room), data, p)
		if n != wantN || !cmp.Equal(got, want, cmpopts.EquateEmpty()) || !cmp.Equal(err, wantErr) {
			t.Fatalf("appendJSONTokens(%q, %s, room %d) = %v, %d, %v; the careful path reads %v, %d, %v",
				data, name, room, got, n, err, want, wantN, wantErr)
		}
	}
}

// longTokenArray writes n tokens of random length, mostly as json.dumps
// writes them, with now and then something the fast paths leave to the
// careful one, or something wrong.
func longTokenArray(rng *rand.Rand, n int) []byte {
	odd := []string{"-5", " 1", "1 ", "  ", "00", "0", "01", "12345678", "1e3", "2.0", " ", "\n", ",", "x", "]", "9223372036854775808", "\"7\""}
	b := []byte{'['}
	for i := range n {
		if i > 0 {
			b = append(b, ", "[:1+rng.IntN(2)]...)
		}
		before := rng.IntN(n) == 0
		if before {
			b = append(b, odd[rng.IntN(len(odd))]...)
		}
		b = strconv.AppendInt(b, rng.Int64N(pow10(1+rng.IntN(7))), 10)
		if !before && rng.IntN(n) == 0 {
			b = append(b, odd[rng.IntN(len(odd))]...)
		}
	}
	return append(b, ']')
}

// TestTokenPathsAgree checks the fast paths against the careful one on
// long arrays, good and spoilt.
func TestTokenPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		data := longTokenArray(rng, rng.IntN(300))
		checkTokenPaths(t, data, rng.IntN(400))
	}
}

func FuzzTokenPaths(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 8 {
		f.Add(longTokenArray(rng, 100), uint16(rng.IntN(200)))
	}
	f.Fuzz(func(t *testing.T, data []byte, room uint16) {
		if len(data) == 0 || data[0] != '[' {
			data = append([]byte{'['}, data...)
		}
		checkTokenPaths(t, data, int(room))
	})
}
