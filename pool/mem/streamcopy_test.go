package mem

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// copyValue copies every byte of every size, whatever the alignment of
// either side, and writes nothing past the value.
func TestCopyValue(t *testing.T) {
	sizes := []int{0, 1, 63, 64, 1023, 1 << 10, 1<<10 + 1, 4 << 10, 4<<10 + 17, 64<<10 - 1, 256 << 10, 256<<10 + 64 + 5, 3 << 20}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range sizes {
		for _, dstOff := range []int{0, 16, 64} {
			for _, srcOff := range []int{0, 1, 64} {
				t.Run(fmt.Sprintf("n=%d/dst+%d/src+%d", n, dstOff, srcOff), func(t *testing.T) {
					src := make([]byte, srcOff+n)
					for i := range src {
						src[i] = byte(rng.Uint32())
					}
					buf := make([]byte, 64+dstOff+n+64)
					base := 64 - int(uintptr(unsafe.Pointer(&buf[0]))&63) // dst+0 is line-aligned
					dst := buf[base+dstOff : base+dstOff+n]
					copyValue(dst, src[srcOff:])
					if !bytes.Equal(dst, src[srcOff:]) {
						t.Errorf("copyValue(%d bytes, dst+%d, src+%d): copy differs", n, dstOff, srcOff)
					}
					if anySet(buf[:base+dstOff]) || anySet(buf[base+dstOff+n:]) {
						t.Errorf("copyValue(%d bytes, dst+%d, src+%d) wrote outside the value", n, dstOff, srcOff)
					}
				})
			}
		}
	}
}

// anySet reports whether some byte of b is not zero.
func anySet(b []byte) bool { return bytes.IndexFunc(b, func(r rune) bool { return r != 0 }) >= 0 }

// copyValue copies as many bytes as the shorter side holds, as copy does.
func TestCopyValueShorterSide(t *testing.T) {
	src := bytes.Repeat([]byte{7}, 8<<10)
	for _, tc := range []struct{ dst, src int }{{4 << 10, 8 << 10}, {8 << 10, 4 << 10}, {4<<10 + 64, 4<<10 + 1}} {
		buf := lineAligned(16 << 10)
		copyValue(buf[:tc.dst], src[:tc.src])
		n := min(tc.dst, tc.src)
		if !bytes.Equal(buf[:n], src[:n]) || anySet(buf[n:]) {
			t.Errorf("copyValue(%d-byte dst, %d-byte src): want the first %d bytes copied and no more", tc.dst, tc.src, n)
		}
	}
}

// lineAligned is n zero bytes on the heap whose first is aligned to a
// cache line, so that copyValue streams into them.
func lineAligned(n int) []byte {
	buf := make([]byte, n+64)
	skip := (64 - int(uintptr(unsafe.Pointer(&buf[0]))&63)) & 63
	return buf[skip : skip+n : skip+n]
}
