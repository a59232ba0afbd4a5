package keys

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/kvctl/kvctl/internal/jsonnum"
)

// TokenError is a bad token, or bad syntax around tokens, in token input.
type TokenError struct {
	// Offset is the byte offset of the problem in the input.
	Offset int
	// Index is the index of the bad token in the token list, or -1 when
	// the problem is not one token (a missing comma, an unterminated array).
	Index int
	// Literal is the token as written (cut to 40 bytes); empty for syntax
	// problems.
	Literal string
	// Problem says what is wrong: "is outside int64", "is not an integer",
	// "unterminated token array", ...
	Problem string
}

// Error returns "token LITERAL PROBLEM", or the problem alone.
func (e *TokenError) Error() string {
	if e.Literal == "" {
		return e.Problem
	}
	return "token " + e.Literal + " " + e.Problem
}

// Is reports whether target is ErrBadInput: a bad token is bad input.
func (e *TokenError) Is(target error) bool { return target == ErrBadInput }

// isSpace marks JSON whitespace.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace[data[i]] {
		i++
	}
	return i
}

// AppendJSONTokens parses the JSON array of integer token ids at the start
// of data (data[0] must be '['), appends the tokens to dst and returns how
// many bytes the array took. dst grows only once it is full, so a caller
// that knows about how many tokens come can size it. Every element must be a JSON integer within
// int64: fractions, exponents, numbers outside int64 and other values are
// errors (*TokenError, offsets relative to data), never rounded or wrapped.
func AppendJSONTokens(dst []int64, data []byte) ([]int64, int, error) {
	return appendJSONTokens(dst, data, masksAndSWAR)
}

// fastPaths says which fast paths appendJSONTokens takes for the tokens
// that are short non-negative integers followed by "," or ", " (nearly
// all of them) before the careful path (scanJSONInt) takes the next one.
// Tests check that each reads the same.
type fastPaths int

const (
	masksAndSWAR fastPaths = iota // maskTokens for the bulk (with AVX2), swarTokens near the end
	swarOnly
	carefulOnly
)

// appendJSONTokens is AppendJSONTokens through the fast paths named.
func appendJSONTokens(dst []int64, data []byte, fast fastPaths) ([]int64, int, error) {
	if len(data) == 0 || data[0] != '[' {
		return dst, 0, &TokenError{Index: -1, Problem: "want a JSON array of token ids"}
	}
	i := skipSpace(data, 1)
	if i < len(data) && data[i] == ']' {
		return dst, i + 1, nil
	}
	for {
		if len(dst) == cap(dst) {
			dst = slices.Grow(dst, 64+(len(data)-i)/8)
		}
		if fast != carefulOnly && shortTokenAt(data, i) {
			if fast == masksAndSWAR && useAVX2 && len(data)-i >= 64+8 {
				dst, i = maskTokens(dst, data, i)
			}
			dst, i = swarTokens(dst, data, i)
		}
		if i+8 <= len(data) && cap(dst) == len(dst) {
			continue // out of room, not out of easy tokens
		}
		i = skipSpace(data, i)
		v, j, err := scanJSONInt(data, i, len(dst))
		if err != nil {
			return dst, i, err
		}
		dst = append(dst, v)
		i = skipSpace(data, j)
		if i >= len(data) {
			return dst, i, &TokenError{Offset: i, Index: -1, Problem: "unterminated token array"}
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return dst, i + 1, nil
		default:
			return dst, i, &TokenError{Offset: i, Index: -1, Problem: "want ',' or ']' after a token, got " + quoteByte(data[i])}
		}
	}
}

// swarTokens appends the easy tokens at data[i:] while dst has room, one
// at a time, reading eight bytes at once, and returns where it stopped:
// at anything else, for the careful path to take. Where each token ends
// depends on where the one before ended.
func swarTokens(dst []int64, data []byte, i int) ([]int64, int) {
	out := dst[:cap(dst)]
	k := len(dst)
	for k < len(out) && i+8 <= len(data) {
		x := binary.LittleEndian.Uint64(data[i:])
		n := leadingDigits(x)
		if n == 0 || n == 8 || (n > 1 && byte(x) == '0') {
			break
		}
		sep := x >> (8 * uint(n) & 63)
		if byte(sep) != ',' {
			break
		}
		out[k] = int64(digitsValue(x, n))
		k++
		i += n + 1
		if byte(sep>>8) == ' ' { // ", " as json.dumps writes it
			i++
		}
	}
	return out[:k], i
}

// SWAR helpers: x holds 8 input bytes, the first in its lowest byte.
const (
	lowBits7  = 0x7f7f7f7f7f7f7f7f
	highBits  = 0x8080808080808080
	asciiZero = 0x3030303030303030
)

// leadingDigits returns how many of the bytes of x, from the first, are
// ASCII digits (8 when all are).
func leadingDigits(x uint64) int {
	low := x & lowBits7
	tooBig := low + 0x4646464646464646    // high bit set when low >= ':'
	bigEnough := low + 0x5050505050505050 // high bit set when low >= '0'
	nonDigit := (tooBig | ^bigEnough | x) & highBits
	return bits.TrailingZeros64(nonDigit) >> 3
}

// digitsValue returns the value of the first n (1..7) bytes of x, all
// ASCII digits: they are moved to the top, under zero digits, and summed
// pairwise, then by fours (8-digit SWAR conversion).
func digitsValue(x uint64, n int) uint64 {
	v := (x - asciiZero) << (8 * uint(8-n) & 63)
	v = v*10 + v>>8
	const mul100 = 100 + 1000000<<32
	const mul1 = 1 + 10000<<32
	return ((v&0x000000ff000000ff)*mul100 + (v>>16&0x000000ff000000ff)*mul1) >> 32
}

// scanJSONInt parses the JSON integer at data[i], token number idx.
func scanJSONInt(data []byte, i, idx int) (int64, int, error) {
	start := i
	if i >= len(data) {
		return 0, i, &TokenError{Offset: i, Index: -1, Problem: "unterminated token array"}
	}
	neg := data[i] == '-'
	if neg {
		i++
	}
	d0 := i
	var u uint64
	for i < len(data) {
		d := data[i] - '0'
		if d > 9 {
			break
		}
		u = u*10 + uint64(d)
		i++
	}
	nd := i - d0
	if nd == 0 || (nd > 1 && data[d0] == '0') || (i < len(data) && !endsJSONValue(data[i])) {
		return 0, i, badJSONToken(data, start, idx)
	}
	if v, ok := digitsToInt64(neg, u, nd); ok {
		return v, i, nil
	}
	return 0, i, &TokenError{Offset: start, Index: idx, Literal: literalAt(data, start), Problem: "is outside int64"}
}

// digitsToInt64 converts nd decimal digits accumulated in u (exact when
// nd <= 19) to an int64, reporting false when the value is outside int64.
func digitsToInt64(neg bool, u uint64, nd int) (int64, bool) {
	switch {
	case nd > 19:
		return 0, false
	case neg && u <= 1<<63:
		return int64(-u), true // -(1<<63) wraps to math.MinInt64, as wanted
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	}
	return 0, false
}

// endsJSONValue reports whether c may follow a value inside an array or
// object.
func endsJSONValue(c byte) bool {
	return c == ',' || c == ']' || c == '}' || isSpace[c]
}

// badJSONToken explains a token that is not a plain JSON integer.
func badJSONToken(data []byte, start, idx int) error {
	if start < len(data) && data[start] == ']' {
		return &TokenError{Offset: start, Index: -1, Problem: "want a token after ',', got ']'"}
	}
	lit := literalAt(data, start)
	if n := jsonnum.Len(data[start:]); n > 0 && n == len(lit) {
		if isPlainInt(lit) { // a good number followed by a stray byte
			return &TokenError{Offset: start + n, Index: -1, Problem: "want ',' or ']' after a token, got " + quoteByte(data[start+n])}
		}
		return &TokenError{Offset: start, Index: idx, Literal: lit, Problem: numberProblem(lit)}
	}
	if len(lit) > 1 && isPlainInt(lit) { // 0 then more digits
		return &TokenError{Offset: start, Index: idx, Literal: lit, Problem: "has a leading zero (not valid JSON)"}
	}
	return &TokenError{Offset: start, Index: idx, Literal: lit, Problem: "is not an integer"}
}

// isPlainInt reports whether s is an optional '-' and one or more digits.
func isPlainInt(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// numberProblem explains why a valid number is not an int64 token.
func numberProblem(lit string) string {
	f, err := strconv.ParseFloat(lit, 64)
	switch {
	case err != nil && math.IsInf(f, 0):
		return "is outside int64"
	case err != nil:
		return "is not an integer"
	case f != math.Trunc(f):
		return "is not an integer"
	case f >= 1<<63 || f < -(1<<63):
		return "is outside int64"
	}
	return "is written as a float; want a plain integer"
}

// literalAt returns the token at data[i] as written: up to the next
// delimiter, a quoted string whole, cut to 40 bytes.
func literalAt(data []byte, i int) string {
	const maxLen = 40
	j := i
	if j < len(data) && data[j] == '"' {
		for j++; j < len(data) && data[j] != '"' && data[j] != '\n'; j++ {
			if data[j] == '\\' {
				j++
			}
		}
		j = min(j+1, len(data))
	} else {
		for j < len(data) && !endsJSONValue(data[j]) && data[j] != '[' && data[j] != '{' {
			j++
		}
		if j == i && j < len(data) {
			j++
		}
	}
	if j-i > maxLen {
		return strconv.Quote(string(data[i:i+maxLen])) + "..."
	}
	lit := string(data[i:j])
	if !printable(lit) {
		return strconv.Quote(lit)
	}
	return lit
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return s != ""
}

func quoteByte(c byte) string {
	return strconv.QuoteRune(rune(c))
}
