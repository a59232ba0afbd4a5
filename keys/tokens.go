package keys

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/kvctl/kvctl/internal/jsonnum"
)

// TokensFormat is how prompt token ids are written.
type TokensFormat string

// The token input formats.
const (
	// TokensAuto detects the format: a JSON array when the first byte that
	// is not whitespace is '[', text otherwise. Raw int64 is never guessed.
	TokensAuto TokensFormat = "auto"
	// TokensJSON is one JSON array of integers.
	TokensJSON TokensFormat = "json"
	// TokensText is decimal integers separated by whitespace, or by commas
	// with optional whitespace around them (`seq 0 63`, "1, 2, 3").
	TokensText TokensFormat = "text"
	// TokensI64 is raw little-endian int64, 8 bytes a token.
	TokensI64 TokensFormat = "i64"
)

// ParseTokensFormat returns the format named s.
func ParseTokensFormat(s string) (TokensFormat, error) {
	switch f := TokensFormat(s); f {
	case TokensAuto, TokensJSON, TokensText, TokensI64:
		return f, nil
	}
	return "", fmt.Errorf("unknown tokens format %q (want auto, json, text or i64)", s)
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// ErrBadInput is wrapped by every error of ReadTokens about what the input
// says (a token that is not an integer or is outside int64, bad syntax,
// raw int64 input that is not a whole number of tokens), as opposed to a
// failure to read it. Every *TokenError is one too.
var ErrBadInput = errors.New("bad token input")

// badInput marks err as bad input, leaving its text as it is.
func badInput(err error) error { return badInputError{err} }

type badInputError struct{ err error }

func (e badInputError) Error() string   { return e.err.Error() }
func (e badInputError) Unwrap() []error { return []error{e.err, ErrBadInput} }

// ReadTokens reads every token id from r, written in format. name names the
// input in errors, which say the line and what is wrong:
//
//	reading tokens from "p.json": line 3: token 1e20 is outside int64
//
// A token outside int64 is an error, never wrapped or rounded. Errors about
// the input's content wrap ErrBadInput.
func ReadTokens(r io.Reader, name string, format TokensFormat) ([]int64, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading tokens from %q: %w", name, err)
	}
	if format == TokensI64 {
		return decodeI64(data, name)
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if format == TokensAuto {
		format = TokensText
		if i := skipSpace(data, 0); i < len(data) && data[i] == '[' {
			format = TokensJSON
		}
	}
	var tokens []int64
	switch format {
	case TokensJSON:
		tokens, err = parseJSONTokens(data)
	case TokensText:
		tokens, err = parseTextTokens(data)
	default:
		_, err = ParseTokensFormat(string(format))
	}
	if err != nil {
		return nil, inputError("reading tokens from", name, data, err)
	}
	return tokens, nil
}

// inputError wraps err with the input's name and, for a *TokenError, the
// line of its offset.
func inputError(verb, name string, data []byte, err error) error {
	var te *TokenError
	if errors.As(err, &te) {
		line := 1 + bytes.Count(data[:min(te.Offset, len(data))], []byte{'\n'})
		return badInput(fmt.Errorf("%s %q: line %d: %w", verb, name, line, err))
	}
	return badInput(fmt.Errorf("%s %q: %w", verb, name, err))
}

func decodeI64(data []byte, name string) ([]int64, error) {
	if len(data)%8 != 0 {
		return nil, badInput(fmt.Errorf("reading tokens from %q: %d bytes is not a whole number of little-endian int64 tokens (8 bytes each)", name, len(data)))
	}
	tokens := make([]int64, len(data)/8)
	for i := range tokens {
		tokens[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return tokens, nil
}

func parseJSONTokens(data []byte) ([]int64, error) {
	i := skipSpace(data, 0)
	if i == len(data) {
		return nil, &TokenError{Offset: i, Index: -1, Problem: "no JSON array of token ids (the input is empty)"}
	}
	if data[i] != '[' {
		return nil, &TokenError{Offset: i, Index: -1, Problem: "want a JSON array of token ids, got " + quoteByte(data[i])}
	}
	tokens, n, err := AppendJSONTokens(make([]int64, 0, len(data)/8), data[i:])
	if err != nil {
		var te *TokenError
		if errors.As(err, &te) {
			te.Offset += i
		}
		return nil, err
	}
	if j := skipSpace(data, i+n); j < len(data) {
		return nil, &TokenError{Offset: j, Index: -1, Problem: "unexpected " + literalAt(data, j) + " after the token array"}
	}
	return tokens, nil
}

// parseTextTokens parses integers separated by whitespace or by single
// commas (with optional whitespace around them).
func parseTextTokens(data []byte) ([]int64, error) {
	tokens := make([]int64, 0, len(data)/6)
	i := skipSpace(data, 0)
	for i < len(data) {
		if data[i] == ',' {
			return nil, &TokenError{Offset: i, Index: -1, Problem: "want a token, got ','"}
		}
		j := i
		for j < len(data) && data[j] != ',' && !isSpace[data[j]] {
			j++
		}
		v, err := parseTextToken(data[i:j], i, len(tokens))
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, v)
		i = skipSpace(data, j)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			if i == len(data) {
				return nil, &TokenError{Offset: i - 1, Index: -1, Problem: "want a token after ','"}
			}
		}
	}
	return tokens, nil
}

// parseTextToken parses one decimal integer, optionally signed.
func parseTextToken(word []byte, offset, idx int) (int64, error) {
	neg := false
	digits := word
	if len(digits) > 0 && (digits[0] == '-' || digits[0] == '+') {
		neg, digits = digits[0] == '-', digits[1:]
	}
	if len(digits) == 0 {
		return 0, &TokenError{Offset: offset, Index: idx, Literal: textLiteral(word), Problem: "is not an integer"}
	}
	var u uint64
	for _, c := range digits {
		d := c - '0'
		if d > 9 {
			return 0, &TokenError{Offset: offset, Index: idx, Literal: textLiteral(word), Problem: wordProblem(word)}
		}
		u = u*10 + uint64(d)
	}
	digits = bytes.TrimLeft(digits, "0") // u is exact when 19 digits or fewer are left
	if len(digits) <= 19 {
		if v, ok := digitsToInt64(neg, u, len(digits)); ok {
			return v, nil
		}
	}
	return 0, &TokenError{Offset: offset, Index: idx, Literal: textLiteral(word), Problem: "is outside int64"}
}

// wordProblem explains a text token that is not a decimal integer.
func wordProblem(word []byte) string {
	if n := jsonnum.Len(word); n > 0 && n == len(word) {
		return numberProblem(string(word))
	}
	return "is not an integer"
}

func textLiteral(word []byte) string {
	const maxLen = 40
	if len(word) > maxLen {
		return strconv.Quote(string(word[:maxLen])) + "..."
	}
	if !printable(string(word)) {
		return strconv.Quote(string(word))
	}
	return string(word)
}
