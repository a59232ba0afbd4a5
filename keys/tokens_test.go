package keys

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseTokensFormat(t *testing.T) {
	for _, s := range []string{"auto", "json", "text", "i64"} {
		if f, err := ParseTokensFormat(s); err != nil || string(f) != s {
			t.Errorf("ParseTokensFormat(%q) = %q, %v", s, f, err)
		}
	}
	if _, err := ParseTokensFormat("csv"); err == nil || !strings.Contains(err.Error(), `"csv"`) {
		t.Errorf("ParseTokensFormat(csv) error = %v, want it to name the format", err)
	}
}

func TestReadTokens(t *testing.T) {
	tests := []struct {
		in     string
		format TokensFormat
		want   []int64
	}{
		{"[0, 1, 2]", TokensAuto, []int64{0, 1, 2}},
		{"  \n[ 5 ,6,\n7 ] \n", TokensAuto, []int64{5, 6, 7}},
		{"[]", TokensJSON, []int64{}},
		{"[-9223372036854775808, 9223372036854775807, -0]", TokensJSON, []int64{-1 << 63, 1<<63 - 1, 0}},
		{"\xef\xbb\xbf[1]", TokensAuto, []int64{1}},
		{"0\n1\n2\n", TokensAuto, []int64{0, 1, 2}},
		{"1, 2,3 ,\t4\r\n5", TokensText, []int64{1, 2, 3, 4, 5}},
		{"+7 -8 007", TokensText, []int64{7, -8, 7}},
		{"", TokensText, []int64{}},
		{"  \n", TokensAuto, []int64{}},
		{"-9223372036854775808 9223372036854775807", TokensText, []int64{-1 << 63, 1<<63 - 1}},
	}
	for _, tt := range tests {
		got, err := ReadTokens(strings.NewReader(tt.in), "p", tt.format)
		if err != nil {
			t.Errorf("ReadTokens(%q, %s) error: %v", tt.in, tt.format, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ReadTokens(%q, %s) (-want +got):\n%s", tt.in, tt.format, diff)
		}
	}
}

func TestReadTokensI64(t *testing.T) {
	want := []int64{-1, 0, 1 << 40, -1 << 63}
	var buf bytes.Buffer
	for _, v := range want {
		binary.Write(&buf, binary.LittleEndian, v)
	}
	got, err := ReadTokens(&buf, "p.bin", TokensI64)
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("ReadTokens(i64) = %v, %v, want %v", got, err, want)
	}
	_, err = ReadTokens(strings.NewReader("0123456789abc"), "p.bin", TokensI64)
	if err == nil || !strings.Contains(err.Error(), `reading tokens from "p.bin": 13 bytes`) {
		t.Errorf("ReadTokens(13 bytes, i64) error = %v, want a length error", err)
	}
}

func TestReadTokensErrors(t *testing.T) {
	tests := []struct {
		in     string
		format TokensFormat
		want   string
	}{
		{"[\n1,\n2,\n1e20]", TokensJSON, `reading tokens from "p.json": line 4: token 1e20 is outside int64`},
		{"[1.5]", TokensAuto, `line 1: token 1.5 is not an integer`},
		{"[1e3]", TokensJSON, `token 1e3 is written as a float; want a plain integer`},
		{"[9223372036854775808]", TokensJSON, `token 9223372036854775808 is outside int64`},
		{"[-9223372036854775809]", TokensJSON, `token -9223372036854775809 is outside int64`},
		{"[123456789012345678901234567890]", TokensJSON, `is outside int64`},
		{`[1, "2"]`, TokensJSON, `token "2" is not an integer`},
		{"[1, true]", TokensJSON, `token true is not an integer`},
		{"[1, null]", TokensJSON, `token null is not an integer`},
		{"[01]", TokensJSON, `token 01 has a leading zero`},
		{"[1, 2", TokensJSON, `unterminated token array`},
		{"[1, 2,", TokensJSON, `unterminated token array`},
		{"[1 2]", TokensJSON, `want ',' or ']' after a token, got '2'`},
		{"[1,]", TokensJSON, `want a token after ',', got ']'`},
		{"[1][2]", TokensJSON, `line 1: unexpected [ after the token array`},
		{"[1]\nx", TokensAuto, `line 2: unexpected x after the token array`},
		{"[12abc]", TokensJSON, `token 12abc is not an integer`},
		{"[1[]", TokensJSON, `want ',' or ']' after a token, got '['`},
		{"[-]", TokensJSON, `token - is not an integer`},
		{"", TokensJSON, `the input is empty`},
		{"1 2", TokensJSON, `want a JSON array of token ids, got '1'`},
		{"1\n2\nabc", TokensText, `line 3: token abc is not an integer`},
		{"1\n2.5", TokensText, `line 2: token 2.5 is not an integer`},
		{"1e20", TokensText, `token 1e20 is outside int64`},
		{"99999999999999999999", TokensText, `token 99999999999999999999 is outside int64`},
		{"1,,2", TokensText, `want a token, got ','`},
		{",1", TokensText, `want a token, got ','`},
		{"1,", TokensText, `want a token after ','`},
		{"-", TokensText, `token - is not an integer`},
		{"\x00", TokensText, `token "\x00" is not an integer`},
	}
	for _, tt := range tests {
		_, err := ReadTokens(strings.NewReader(tt.in), "p.json", tt.format)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadTokens(%q, %s) error = %v, want %q", tt.in, tt.format, err, tt.want)
		}
		var te *TokenError
		if err != nil && !errors.As(err, &te) {
			t.Errorf("ReadTokens(%q, %s) error %v is not a *TokenError", tt.in, tt.format, err)
		}
	}
}

func TestAppendJSONTokensLength(t *testing.T) {
	data := []byte(`[1, 2 ]  , "x"`)
	got, n, err := AppendJSONTokens([]int64{9}, data)
	if err != nil || n != 7 || !cmp.Equal(got, []int64{9, 1, 2}) {
		t.Errorf("AppendJSONTokens(%q) = %v, %d, %v, want [9 1 2], 7, nil", data, got, n, err)
	}
	_, _, err = AppendJSONTokens(nil, []byte(`[1, 2.5]`))
	var te *TokenError
	if !errors.As(err, &te) || te.Index != 1 || te.Offset != 4 || te.Literal != "2.5" {
		t.Errorf("AppendJSONTokens([1, 2.5]) error = %#v, want index 1 at offset 4", err)
	}
}

// TestAppendJSONTokensRandom checks the fast and careful paths on arrays
// of every digit count, sign and spacing, against encoding/json.
func TestAppendJSONTokensRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	seps := []string{",", ", ", " ,", " , ", ",\n  ", ",\t", "  ,  "}
	for range 300 {
		n := rng.IntN(60)
		var b strings.Builder
		b.WriteString("[")
		want := make([]int64, n)
		for i := range want {
			if i > 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			digits := 1 + rng.IntN(19)
			v := rng.Int64N(pow10(digits))
			if rng.IntN(4) == 0 {
				v = -v
			}
			if rng.IntN(50) == 0 {
				v = []int64{math.MaxInt64, math.MinInt64, 0}[rng.IntN(3)]
			}
			want[i] = v
			b.WriteString(strconv.FormatInt(v, 10))
		}
		b.WriteString("]")
		data := b.String() + strings.Repeat(" ", rng.IntN(10))
		got, used, err := AppendJSONTokens(nil, []byte(data))
		if err != nil || used != strings.LastIndexByte(data, ']')+1 || !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
			t.Fatalf("AppendJSONTokens(%q) = %v, %d, %v, want %v", data, got, used, err, want)
		}
	}
}

func pow10(n int) int64 {
	v := int64(1)
	for range min(n, 18) {
		v *= 10
	}
	return v
}

// TestAppendJSONTokensFastPathErrors puts bad tokens where the fast path
// reads them: in the middle of long arrays of short tokens.
func TestAppendJSONTokensFastPathErrors(t *testing.T) {
	prefix := strings.Repeat("12345, ", 20)
	tests := []struct{ bad, want string }{
		{"01", "token 01 has a leading zero"},
		{"00", "token 00 has a leading zero"},
		{"1.5", "token 1.5 is not an integer"},
		{"12x", "token 12x is not an integer"},
		{"1e5", "token 1e5 is written as a float"},
		{"99999999999999999999", "token 99999999999999999999 is outside int64"},
		{"\"7\"", `token "7" is not an integer`},
	}
	for _, tt := range tests {
		data := "[" + prefix + tt.bad + ", 1, 2, 3, 4, 5, 6, 7, 8, 9]"
		_, _, err := AppendJSONTokens(nil, []byte(data))
		var te *TokenError
		if !errors.As(err, &te) || te.Index != 20 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("AppendJSONTokens(... %s ...) error = %v, want token 20: %q", tt.bad, err, tt.want)
		}
	}
	for _, tail := range []string{"1,,2]", "1, , 2]", "1 2, 3, 4, 5, 6, 7, 8]", "1,\x002, 3, 4, 5, 6, 7]"} {
		if _, _, err := AppendJSONTokens(nil, []byte("["+prefix+tail)); err == nil {
			t.Errorf("AppendJSONTokens(... %q) = nil error", tail)
		}
	}
}
