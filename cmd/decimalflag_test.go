package cmd

import (
	"math"
	"testing"
)

func TestDecimalInt64Set(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"10", 10, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"010", 0, false},
		{"0x10", 0, false},
		{"0o10", 0, false},
		{"+5", 0, false},
		{"-1", 0, false},
		{"1_000", 0, false},
		{"9223372036854775808", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		var v int64
		err := newDecimalInt64(&v, 0, 0, math.MaxInt64).Set(tt.in)
		if (err == nil) != tt.ok || v != tt.want {
			t.Errorf("Set(%q) = %d, %v; want %d, ok %v", tt.in, v, err, tt.want, tt.ok)
		}
	}
}
