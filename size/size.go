// Package size parses and formats byte sizes with binary units only, as
// Mooncake and TensorRT-LLM configuration files spell them.
package size

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

var binaryUnits = map[string]int64{
	"":    1,
	"b":   1,
	"kib": 1 << 10,
	"mib": 1 << 20,
	"gib": 1 << 30,
	"tib": 1 << 40,
}

var decimalUnits = map[string]bool{
	"k": true, "kb": true, "m": true, "mb": true, "g": true, "gb": true, "t": true, "tb": true,
}

// Parse parses a byte size: an integer, or a number with a binary unit
// (b, KiB, MiB, GiB, TiB; case-insensitive), such as "64KiB" or "1.5GiB",
// that comes to a whole number of bytes ("100.7" and "1.1KiB" are refused).
// Decimal units (k, kb, m, mb, g, gb, ...) are refused, because other
// readers of the same Mooncake configuration take them as powers of 1024.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) })
	num, unit := t, ""
	if i >= 0 {
		num, unit = strings.TrimSpace(t[:i]), strings.ToLower(t[i:])
	}
	if decimalUnits[unit] {
		return 0, fmt.Errorf("size %q: decimal unit %q is ambiguous; use a binary unit (KiB, MiB, GiB, TiB)", s, t[i:])
	}
	mult, ok := binaryUnits[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q (want b, KiB, MiB, GiB or TiB)", s, t[i:])
	}
	if num == "" {
		return 0, fmt.Errorf("size %q: no number", s)
	}
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("size %q: negative", s)
		}
		if n > math.MaxInt64/mult {
			return 0, fmt.Errorf("size %q: too large", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("size %q: %q is not a number", s, num)
	}
	if f < 0 {
		return 0, fmt.Errorf("size %q: negative", s)
	}
	v := f * float64(mult)
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	if v != math.Trunc(v) {
		return 0, fmt.Errorf("size %q: %s is not a whole number of bytes", s, strconv.FormatFloat(v, 'f', -1, 64))
	}
	return int64(v), nil
}

// Format spells n bytes with the largest binary unit that divides it
// exactly (65536 -> "64KiB"), or in bytes.
func Format(n int64) string {
	units := []struct {
		name string
		mult int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// Human spells n bytes for people: a binary unit and one decimal
// ("1.5 GiB"), or bytes below 1 KiB ("512 B"). It rounds; Format is exact.
func Human(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
