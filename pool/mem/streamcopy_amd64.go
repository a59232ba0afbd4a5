//go:build amd64 && !purego

package mem

import "unsafe"

// copyStreaming copies n bytes, a positive multiple of 64, from src to dst,
// 16-byte aligned, with non-temporal stores, and fences them.
//
//go:noescape
func copyStreaming(dst, src *byte, n int)

// streamMin is the least a value must hold for copyValue to stream it:
// below it the cached copy costs as little. streamChunk is the most one
// copyStreaming call moves: the assembly cannot be preempted, so a large
// value is copied in pieces.
const (
	streamMin   = 1 << 10
	streamChunk = 256 << 10
)

// copyValue copies src into dst, as many bytes as the shorter holds, as
// copy does: the bytes of a new value. A value put is seldom read again
// before it leaves the caches, so from streamMin bytes on, where dst is
// aligned to a cache line, its whole lines are written with non-temporal
// stores: they fill the lines without first reading them, and spare the
// caches.
func copyValue(dst, src []byte) {
	n := min(len(dst), len(src))
	dst, src = dst[:n], src[:n]
	if len(src) < streamMin || uintptr(unsafe.Pointer(unsafe.SliceData(dst)))&63 != 0 {
		copy(dst, src)
		return
	}
	for len(src) >= 64 {
		n := min(len(src), streamChunk) &^ 63
		copyStreaming(&dst[0], &src[0], n)
		dst, src = dst[n:], src[n:]
	}
	copy(dst, src)
}
