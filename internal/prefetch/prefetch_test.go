package prefetch

import (
	"testing"
	"unsafe"
)

// Line changes nothing the program can see, for any address in a value,
// at its start, its end or across lines.
func TestLineChangesNothing(t *testing.T) {
	buf := make([]byte, 256)
	for i := range buf {
		buf[i] = byte(i)
	}
	for _, off := range []int{0, 1, 63, 64, 200, 255} {
		Line(unsafe.Pointer(&buf[off]))
	}
	for i, b := range buf {
		if b != byte(i) {
			t.Fatalf("byte %d = %d after prefetching, want %d", i, b, byte(i))
		}
	}
}
