package cmd

import "testing"

func TestServeRemovesPages(t *testing.T) {
	tests := []struct {
		url  string
		keep bool
		want bool
	}{
		{"mooncake-store://127.0.0.1:50051?segment=1GiB", false, true},
		{"mooncake-store:?config=/etc/mooncake.json", false, true},
		{"mooncake-store://127.0.0.1:50051", true, false},
		{"redis://127.0.0.1:6379/0", false, false},
		{"mem://?capacity=1GiB", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		o := &serveOptions{Pool: poolFlag{URL: tt.url}, Keep: tt.keep}
		if got := o.removesPages(); got != tt.want {
			t.Errorf("removesPages(%q, keep %v) = %v, want %v", tt.url, tt.keep, got, tt.want)
		}
	}
}
