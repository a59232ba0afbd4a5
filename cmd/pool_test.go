package cmd

import "testing"

func TestWithMooncakeLib(t *testing.T) {
	tests := []struct{ raw, lib, want string }{
		{"mooncake-store://m:50051", "/opt/libmooncake_store.so", "mooncake-store://m:50051?lib=%2Fopt%2Flibmooncake_store.so"},
		{"mooncake-store://m?admin=m:9003", "l.so", "mooncake-store://m?admin=m%3A9003&lib=l.so"},
		{"mooncake-store:?config=/etc/mc.json", "l.so", "mooncake-store:?config=%2Fetc%2Fmc.json&lib=l.so"},
		{"mooncake-store://m?lib=mine.so", "l.so", "mooncake-store://m?lib=mine.so"},
		{"mooncake-store://m", "", "mooncake-store://m"},
		{"redis://h:6379", "l.so", "redis://h:6379"},
		{"mem://", "l.so", "mem://"},
	}
	for _, tt := range tests {
		if got := withMooncakeLib(tt.raw, tt.lib); got != tt.want {
			t.Errorf("withMooncakeLib(%q, %q) = %q, want %q", tt.raw, tt.lib, got, tt.want)
		}
	}
}
