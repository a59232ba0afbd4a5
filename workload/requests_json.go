package workload

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kvctl/kvctl/internal/jsonnum"
)

// The JSON building blocks of requestParser: whitespace, literals,
// numbers and strings, all checked as strictly as RFC 8259 asks.

func (p *requestParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *requestParser) at(c byte) bool {
	return p.i < len(p.data) && p.data[p.i] == c
}

// null consumes a null literal if there is one.
func (p *requestParser) null() bool {
	if bytes.HasPrefix(p.data[p.i:], []byte("null")) && p.endsValue(p.i+4) {
		p.i += 4
		return true
	}
	return false
}

// endsValue reports whether a value may end before data[i].
func (p *requestParser) endsValue(i int) bool {
	if i >= len(p.data) {
		return true
	}
	switch p.data[i] {
	case ',', ']', '}', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// kind names the JSON value starting at the cursor, for errors.
func (p *requestParser) kind() string {
	if p.i >= len(p.data) {
		return "the end of the line"
	}
	switch c := p.data[p.i]; {
	case c == '"':
		return "a string"
	case c == '[':
		return "an array"
	case c == '{':
		return "an object"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	case bytes.HasPrefix(p.data[p.i:], []byte("true")) || bytes.HasPrefix(p.data[p.i:], []byte("false")):
		return "a boolean"
	case bytes.HasPrefix(p.data[p.i:], []byte("null")):
		return "null"
	}
	return p.literal()
}

// literal quotes what is at the cursor, cut short.
func (p *requestParser) literal() string {
	end := min(p.i+20, len(p.data))
	s := strconv.Quote(string(p.data[p.i:end]))
	if end < len(p.data) {
		s += "..."
	}
	return s
}

// optString reads a string, or null as "".
func (p *requestParser) optString(name string) (string, error) {
	if p.null() {
		return "", nil
	}
	if !p.at('"') {
		return "", fmt.Errorf("%s: want a string, got %s", name, p.kind())
	}
	b, err := p.rawString()
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return string(b), nil
}

// rawString reads the string at the cursor (which is at '"'). The bytes
// returned are valid until the next call.
func (p *requestParser) rawString() ([]byte, error) {
	start := p.i + 1
	ascii := true
	for j := start; j < len(p.data); j++ {
		switch c := p.data[j]; {
		case c == '"':
			s := p.data[start:j]
			if !ascii && !utf8.Valid(s) {
				return nil, errors.New("string is not valid UTF-8")
			}
			p.i = j + 1
			return s, nil
		case c == '\\':
			return p.escapedString(start)
		case c < 0x20:
			return nil, fmt.Errorf("control character %q in a string", c)
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, errors.New("unterminated string")
}

// escapedString decodes a string with escapes, starting after its '"'.
func (p *requestParser) escapedString(start int) ([]byte, error) {
	out := p.buf[:0]
	j := start
	for j < len(p.data) {
		c := p.data[j]
		switch {
		case c == '"':
			if !utf8.Valid(out) {
				return nil, errors.New("string is not valid UTF-8")
			}
			p.i, p.buf = j+1, out
			return out, nil
		case c < 0x20:
			return nil, fmt.Errorf("control character %q in a string", c)
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		r, n, err := unescape(p.data[j:])
		if err != nil {
			return nil, err
		}
		out = utf8.AppendRune(out, r)
		j += n
	}
	return nil, errors.New("unterminated string")
}

// unescape decodes the escape at the start of b, returning the rune and
// how many bytes it took. Surrogate halves must come in pairs.
func unescape(b []byte) (rune, int, error) {
	if len(b) < 2 {
		return 0, 0, errors.New("unterminated string")
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return 0, 0, fmt.Errorf("bad escape %q", b[:min(6, len(b))])
		}
		if !utf16.IsSurrogate(r) {
			return r, 6, nil
		}
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if r2, ok := hex4(b[8:]); ok {
				if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
					return pair, 12, nil
				}
			}
		}
		return 0, 0, fmt.Errorf("escape %q is half a surrogate pair", b[:6])
	}
	return 0, 0, fmt.Errorf("bad escape %q", b[:2])
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v), err == nil
}

// integer reads a JSON integer in [lo, hi]; want names the range.
func (p *requestParser) integer(name string, lo, hi int64, want string) (int64, error) {
	n := jsonnum.Len(p.data[p.i:])
	if n == 0 {
		return 0, fmt.Errorf("%s: want an integer, got %s", name, p.kind())
	}
	lit := string(p.data[p.i : p.i+n])
	if !p.endsValue(p.i + n) {
		return 0, fmt.Errorf("%s: want an integer, got %s", name, p.literal())
	}
	v, err := strconv.ParseInt(lit, 10, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s: %s is outside %s", name, lit, want)
	case err != nil:
		return 0, fmt.Errorf("%s: %s is not an integer", name, lit)
	case v < lo || v > hi:
		return 0, fmt.Errorf("%s: %s is outside %s", name, lit, want)
	}
	p.i += n
	return v, nil
}
