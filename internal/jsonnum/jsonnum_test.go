package jsonnum

import (
	"encoding/json"
	"testing"
)

func TestLen(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"0", 1},
		{"-0", 2},
		{"7", 1},
		{"1234567890", 10},
		{"-12", 3},
		{"12,", 2},
		{"12]", 2},
		{"12 ", 2},
		{"01", 1},
		{"-01", 2},
		{"1.5", 3},
		{"0.0001", 6},
		{"1.5x", 3},
		{"1e5", 3},
		{"1E+05", 5},
		{"-2.5e-3,", 7},
		{"1.5e3.2", 5},
		{"", 0},
		{"-", 0},
		{"+1", 0},
		{".5", 0},
		{"1.", 0},
		{"1.e5", 0},
		{"1e", 0},
		{"1e+", 0},
		{"1E-,", 0},
		{"--1", 0},
		{"x1", 0},
		{" 1", 0},
		{"NaN", 0},
		{"Infinity", 0},
	}
	for _, tt := range tests {
		if got := Len([]byte(tt.in)); got != tt.want {
			t.Errorf("Len(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// isJSONNumber reports whether b is exactly one JSON number, as
// encoding/json sees it.
func isJSONNumber(b []byte) bool {
	if len(b) == 0 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
		return false
	}
	last := b[len(b)-1]
	return last >= '0' && last <= '9' && json.Valid(b)
}

// FuzzLen checks Len against encoding/json: what Len spans is a JSON
// number, and all of b is spanned exactly when b is one.
func FuzzLen(f *testing.F) {
	for _, s := range []string{"0", "-12,", "1.5e3", "01", "1.", "1e+", "-", "12345678901234567890123"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n := Len(b)
		if n < 0 || n > len(b) {
			t.Fatalf("Len(%q) = %d, outside [0, %d]", b, n, len(b))
		}
		if n > 0 && !isJSONNumber(b[:n]) {
			t.Errorf("Len(%q) = %d, but %q is not a JSON number", b, n, b[:n])
		}
		if whole := isJSONNumber(b); whole != (n == len(b) && n > 0) {
			t.Errorf("Len(%q) = %d, want %d: encoding/json says it is a number: %v", b, n, len(b), whole)
		}
	})
}

// BenchmarkLen scans the numbers of a token array one after another.
func BenchmarkLen(b *testing.B) {
	data := []byte("151935,0,-42,1.5e3,98765,3,27,123456,7,0.25,")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for i := 0; i < len(data); i++ {
			i += Len(data[i:])
		}
	}
}
