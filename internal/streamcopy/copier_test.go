package streamcopy

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// copyOne copies src into dst with a Copier of its own.
func copyOne(dst, src []byte) {
	var c Copier
	c.Copy(dst, src)
	c.Finish()
}

// A Copier copies every byte of every size, whatever the alignment of
// either side, and writes nothing past the value.
func TestCopierCopies(t *testing.T) {
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
					copyOne(dst, src[srcOff:])
					if !bytes.Equal(dst, src[srcOff:]) {
						t.Errorf("copyOne(%d bytes, dst+%d, src+%d): copy differs", n, dstOff, srcOff)
					}
					if anySet(buf[:base+dstOff]) || anySet(buf[base+dstOff+n:]) {
						t.Errorf("copyOne(%d bytes, dst+%d, src+%d) wrote outside the value", n, dstOff, srcOff)
					}
				})
			}
		}
	}
}

// anySet reports whether some byte of b is not zero.
func anySet(b []byte) bool { return bytes.IndexFunc(b, func(r rune) bool { return r != 0 }) >= 0 }

// A Copier copies as many bytes as the shorter side holds, as copy
// does.
func TestCopierShorterSide(t *testing.T) {
	src := bytes.Repeat([]byte{7}, 8<<10)
	for _, tc := range []struct{ dst, src int }{{4 << 10, 8 << 10}, {8 << 10, 4 << 10}, {4<<10 + 64, 4<<10 + 1}} {
		buf := lineAligned(16 << 10)
		copyOne(buf[:tc.dst], src[:tc.src])
		n := min(tc.dst, tc.src)
		if !bytes.Equal(buf[:n], src[:n]) || anySet(buf[n:]) {
			t.Errorf("copyOne(%d-byte dst, %d-byte src): want the first %d bytes copied and no more", tc.dst, tc.src, n)
		}
	}
}

// lineAligned is n zero bytes on the heap whose first is aligned to a
// cache line, so that a Copier streams into them.
func lineAligned(n int) []byte {
	buf := make([]byte, n+64)
	skip := (64 - int(uintptr(unsafe.Pointer(&buf[0]))&63)) & 63
	return buf[skip : skip+n : skip+n]
}

// One Copier copies a call's values whole however they fall into its
// batches, and nothing between them: more values than a batch lists,
// values that fill a batch's bytes, values larger than a batch, values it
// copies without streaming between them, and destinations on cache-line
// boundaries one after the other, as a put places them.
func TestCopierCopiesACallsValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []int{4 << 10, 4 << 10, 100, 64<<10 + 64, 1 << 10, 3 << 20, 1<<10 - 1, 256 << 10, 4<<10 + 17}
	for len(sizes) < 200 { // more pieces than three batches list on amd64
		sizes = append(sizes, 2<<10)
	}
	total := 0
	for _, n := range sizes {
		total += (n + 63) &^ 63
	}
	arena := lineAligned(total + 64)
	srcs, dsts := make([][]byte, len(sizes)), make([][]byte, len(sizes))
	at := 0
	var c Copier
	for i, n := range sizes {
		srcs[i] = make([]byte, n)
		for j := range srcs[i] {
			srcs[i][j] = byte(rng.Uint32() | 1)
		}
		dsts[i] = arena[at : at+n : at+n]
		at += (n + 63) &^ 63
		c.Copy(dsts[i], srcs[i])
	}
	c.Finish()
	at = 0
	for i, n := range sizes {
		if !bytes.Equal(dsts[i], srcs[i]) {
			t.Errorf("value %d (%d bytes) differs after the copier finished", i, n)
		}
		if gap := arena[at+n : at+(n+63)&^63]; anySet(gap) {
			t.Errorf("the copier wrote into the %d bytes after value %d", len(gap), i)
		}
		at += (n + 63) &^ 63
	}
	if anySet(arena[at:]) {
		t.Errorf("the copier wrote past the last value")
	}
}

// BenchmarkCopier copies 64 MiB of values of each size from one buffer
// into another, as Put calls of 64 values each copy them, the lines
// fenced once a value (Finish after each, as Put did until 878df35) or
// once a batch. On the 2-vCPU EPYC VM of 2026-12-05, 4 KiB values copied
// at 0.62-0.67 times the batch's rate when fenced once a value.
func BenchmarkCopier(b *testing.B) {
	const total, call = 64 << 20, 64
	src, arena := lineAligned(total), lineAligned(total)
	for _, size := range []int{2 << 10, 4 << 10, 64 << 10} {
		for _, perValue := range []bool{true, false} {
			name := fmt.Sprintf("value=%dKiB/fence=batch", size>>10)
			if perValue {
				name = fmt.Sprintf("value=%dKiB/fence=value", size>>10)
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(total)
				for b.Loop() {
					var c Copier
					for at, i := 0, 1; at < total; at, i = at+size, i+1 {
						c.Copy(arena[at:at+size], src[at:at+size])
						if perValue || i%call == 0 {
							c.Finish()
						}
					}
					c.Finish()
				}
			})
		}
	}
}
