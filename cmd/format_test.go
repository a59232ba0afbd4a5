package cmd

import "testing"

func TestCapacityText(t *testing.T) {
	tests := []struct {
		backend string
		n       int64
		want    string
	}{
		{"redis", 0, "unlimited"},
		{"redis", 1 << 30, "1.0 GiB"},
		{"keylist", 0, "unknown"},
		{"mem", 64 << 20, "64.0 MiB"},
	}
	for _, tt := range tests {
		if got := capacityText(tt.backend, tt.n); got != tt.want {
			t.Errorf("capacityText(%q, %d) = %q, want %q", tt.backend, tt.n, got, tt.want)
		}
	}
}
