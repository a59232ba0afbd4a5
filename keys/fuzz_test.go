package keys

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func addTokenSeeds(f *testing.F) {
	for _, s := range []string{
		"[0, 1, 2]", "[]", " [ -1 ,2]\n", "[1.5]", "[1e20]", "[01]", "[1,]", "[", "]", "1 2 3",
		"1,2, 3\n4", "+5 -0", "[9223372036854775807, -9223372036854775808]", "99999999999999999999",
		`["a"]`, "[1][2]", "\xef\xbb\xbf[1]", "",
	} {
		f.Add([]byte(s))
	}
}

// FuzzReadTokensJSON checks the JSON reader against encoding of what it
// read: every accepted input round-trips, every error is a *TokenError with
// a line number.
func FuzzReadTokensJSON(f *testing.F) {
	addTokenSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []TokensFormat{TokensJSON, TokensAuto} {
			tokens, err := ReadTokens(bytes.NewReader(data), "fuzz", format)
			checkTokensResult(t, data, format, tokens, err)
		}
	})
}

// FuzzReadTokensText does the same for the text format.
func FuzzReadTokensText(f *testing.F) {
	addTokenSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		tokens, err := ReadTokens(bytes.NewReader(data), "fuzz", TokensText)
		checkTokensResult(t, data, TokensText, tokens, err)
	})
}

// FuzzReadTokensI64 checks raw int64 input: any multiple of 8 bytes is
// read exactly, anything else is refused.
func FuzzReadTokensI64(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("01234567"))
	f.Add([]byte("0123456789"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tokens, err := ReadTokens(bytes.NewReader(data), "fuzz", TokensI64)
		if len(data)%8 != 0 {
			if err == nil {
				t.Fatalf("ReadTokens(%d bytes, i64) = nil error", len(data))
			}
			return
		}
		if err != nil || !bytes.Equal(encodeTokens(tokens), data) {
			t.Fatalf("ReadTokens(%x, i64) = %v, %v, want the same bytes back", data, tokens, err)
		}
	})
}

func checkTokensResult(t *testing.T, data []byte, format TokensFormat, tokens []int64, err error) {
	t.Helper()
	if err != nil {
		var te *TokenError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), `reading tokens from "fuzz": line `) {
			t.Fatalf("ReadTokens(%q, %s) error %q has no line or is not a *TokenError", data, format, err)
		}
		if te.Offset < 0 || te.Offset > len(data) {
			t.Fatalf("ReadTokens(%q, %s) error offset %d outside the input", data, format, te.Offset)
		}
		return
	}
	// Whatever was accepted must be the integers of the input, as
	// strconv reads them.
	fields := strings.FieldsFunc(strings.TrimPrefix(string(data), "\xef\xbb\xbf"), func(r rune) bool {
		return strings.ContainsRune(" \t\r\n,[]", r)
	})
	if len(fields) != len(tokens) {
		t.Fatalf("ReadTokens(%q, %s) = %v, want %d tokens", data, format, tokens, len(fields))
	}
	for i, f := range fields {
		if v, err := strconv.ParseInt(f, 10, 64); err != nil || v != tokens[i] {
			t.Fatalf("ReadTokens(%q, %s) token %d = %d, strconv reads %q as %d, %v", data, format, i, tokens[i], f, v, err)
		}
	}
}

// FuzzChainIncremental checks that extending a chain in any chunking gives
// the one-shot hashes.
func FuzzChainIncremental(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef01234567"), uint8(2), uint8(1), uint8(3))
	f.Add([]byte{}, uint8(1), uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, raw []byte, T, L, chunk uint8) {
		tokens := make([]int64, len(raw)/8)
		for i := range tokens {
			tokens[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		per, look, step := int(T%64)+1, int(L%8), int(chunk%17)+1
		seed := Digest(raw)
		want := referenceChain(seed, tokens, per, look)
		c, err := NewChain(seed, per, look)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(tokens); i += step {
			c.Extend(tokens[i:min(i+step, len(tokens))])
		}
		if c.NumBlocks() != len(want) {
			t.Fatalf("T=%d L=%d chunk=%d: %d blocks, want %d", per, look, step, c.NumBlocks(), len(want))
		}
		for i := range want {
			if c.Hash(i) != want[i] {
				t.Fatalf("T=%d L=%d chunk=%d: block %d = %s, want %s", per, look, step, i, c.Hash(i), want[i])
			}
		}
	})
}

// FuzzExtendAll checks ExtendAll against Extend for chains cut from the
// fuzz input.
func FuzzExtendAll(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef0123456789abcdef01234567"), uint8(3), uint8(0), uint8(9))
	f.Fuzz(func(t *testing.T, raw []byte, T, L, n uint8) {
		per, look, count := int(T%40)+1, int(L%5), int(n%20)+1
		tokens := make([]int64, len(raw)/8)
		for i := range tokens {
			tokens[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		chains := make([]*Chain, count)
		prompts := make([][]int64, count)
		for i := range chains {
			chains[i], _ = NewChain(Hash{byte(i)}, per, look)
			prompts[i] = tokens[min(i, len(tokens)):]
		}
		ExtendAll(chains, prompts)
		for i, c := range chains {
			want := referenceChain(Hash{byte(i)}, prompts[i], per, look)
			if c.NumBlocks() != len(want) {
				t.Fatalf("T=%d L=%d chain %d: %d blocks, want %d", per, look, i, c.NumBlocks(), len(want))
			}
			for b := range want {
				if c.Hash(b) != want[b] {
					t.Fatalf("T=%d L=%d chain %d block %d = %s, want %s", per, look, i, b, c.Hash(b), want[b])
				}
			}
		}
	})
}
