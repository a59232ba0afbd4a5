package size

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"0", 0, false},
		{"65536", 65536, false},
		{"64KiB", 64 << 10, false},
		{"64kib", 64 << 10, false},
		{" 1 GiB ", 1 << 30, false},
		{"1.5GiB", 3 << 29, false},
		{"2TiB", 2 << 40, false},
		{"3355443200", 3355443200, false},
		{"12b", 12, false},
		{"64kb", 0, true},
		{"1g", 0, true},
		{"1GB", 0, true},
		{"-1", 0, true},
		{"-1KiB", 0, true},
		{"KiB", 0, true},
		{"1xb", 0, true},
		{"", 0, true},
		{"9999999TiB", 0, true},
		{"NaNKiB", 0, true},
		{"100.7", 0, true},
		{"0.5b", 0, true},
		{"1.1KiB", 0, true},
		{"0.5KiB", 512, false},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := map[int64]string{0: "0", 65536: "64KiB", 1 << 30: "1GiB", 1000: "1000", 3 << 29: "1536MiB"}
	for in, want := range tests {
		if got := Format(in); got != want {
			t.Errorf("Format(%d) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"64KiB", "1.5GiB", "12", "1kb", "-3", "1e3MiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("Parse(%q) = %d, negative", s, n)
		}
		if back, err := Parse(Format(n)); err != nil || back != n {
			t.Fatalf("Parse(Format(%d)) = %d, %v", n, back, err)
		}
	})
}

func TestHuman(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"},
		{64 << 20, "64.0 MiB"}, {25275973632, "23.5 GiB"}, {1 << 40, "1.0 TiB"}, {1 << 62, "4096.0 PiB"},
	}
	for _, tt := range tests {
		if got := Human(tt.n); got != tt.want {
			t.Errorf("Human(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
