// Package jsonnum finds JSON numbers by the JSON grammar (RFC 8259) for
// kvctl's hand-written JSON readers (keys' token arrays, workload's
// requests), which scan numbers in place instead of decoding them.
package jsonnum

// Len returns the length of the JSON number at the start of b, or 0 when
// b does not start with one. It reads greedily: an optional '-', then 0 or
// a digit run not starting with 0, then an optional fraction and exponent;
// a fraction or exponent that is started but has no digit ("1.", "1e+")
// makes it 0. What follows the number is not examined: Len("01") is 1 and
// Len("12,") is 2.
func Len(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i)
	default:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		j := digitsEnd(b, i+1)
		if j == i+1 {
			return 0
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsEnd(b, i)
		if j == i {
			return 0
		}
		i = j
	}
	return i
}

// digitsEnd returns the index of the first non-digit in b at or after i.
func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
