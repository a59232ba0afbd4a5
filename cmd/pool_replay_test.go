package cmd

import "testing"

func TestCompactKeys(t *testing.T) {
	tests := []struct {
		keys []string
		max  int
		want string
	}{
		{nil, 5, "-"},
		{[]string{"k0000", "k0001", "k0002", "k0046"}, 5, "k0000..k0002 k0046"},
		{[]string{"k1", "k2"}, 5, "k1 k2"},
		{[]string{"k8", "k9", "k10"}, 5, "k8 k9 k10"},
		{[]string{"a1", "a2", "a3", "b4", "b5", "b6"}, 5, "a1..a3 b4..b6"},
		{[]string{"x", "y", "z1", "z3"}, 2, "x y and 2 more"},
	}
	for _, tt := range tests {
		if got := compactKeys(tt.keys, tt.max); got != tt.want {
			t.Errorf("compactKeys(%q, %d) = %q, want %q", tt.keys, tt.max, got, tt.want)
		}
	}
}
