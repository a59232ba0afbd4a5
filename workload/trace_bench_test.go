package workload

import (
	"os"
	"testing"
)

// BenchmarkReadTrace measures parsing the trace excerpt.
func BenchmarkReadTrace(b *testing.B) {
	data, err := os.ReadFile(headTrace)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, _ := os.Open(headTrace)
		_ = ReadTrace(f, headTrace, func(int, TraceRecord) error { return nil })
		f.Close()
	}
}

// BenchmarkIdealPrefixReuse measures the reuse replay over the excerpt.
func BenchmarkIdealPrefixReuse(b *testing.B) {
	src, err := Open(headTrace, FormatMooncake)
	if err != nil {
		b.Fatal(err)
	}
	src.ReuseTokens = true
	for b.Loop() {
		if _, err := IdealPrefixReuse(src, 32); err != nil {
			b.Fatal(err)
		}
	}
}
