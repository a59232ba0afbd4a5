package mooncake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The master writes its JSON with yalantinglibs' struct_json: fields in
// declaration order, absent optionals as explicit nulls, characters outside
// ASCII as \uXXXX escapes with upper-case hex, nothing HTML-escaped, and
// doubles in Dragonbox's shortest scientific spelling (8.72802734375E-1).
// writeJSON and sciFloat spell answers the same way.

// sciFloat is a double spelled as the master spells it: the shortest
// digits that read back exactly, in scientific notation with an upper-case
// E and an exponent without sign padding or leading zeros (0 is "0E0").
type sciFloat float64

// MarshalJSON spells f as the master does.
func (f sciFloat) MarshalJSON() ([]byte, error) {
	s := strconv.FormatFloat(float64(f), 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	n, err := strconv.Atoi(exp)
	if err != nil {
		return nil, fmt.Errorf("spelling %v: %w", float64(f), err)
	}
	return []byte(mant + "E" + strconv.Itoa(n)), nil
}

// writeJSON writes v as a JSON answer in the master's spelling.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	body := escapeNonASCII(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}

// escapeNonASCII rewrites every character of JSON text outside ASCII as a
// \uXXXX escape (a surrogate pair above U+FFFF). Such characters occur only
// inside strings, so the text stays the same JSON.
func escapeNonASCII(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	if i == len(b) {
		return b
	}
	out := append(make([]byte, 0, len(b)+32), b[:i]...)
	for _, r := range string(b[i:]) {
		switch {
		case r < utf8.RuneSelf:
			out = append(out, byte(r))
		case r > 0xFFFF:
			r -= 0x10000
			out = fmt.Appendf(out, `\u%04X\u%04X`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			out = fmt.Appendf(out, `\u%04X`, r)
		}
	}
	return out
}
