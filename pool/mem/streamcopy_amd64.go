//go:build amd64 && !purego

package mem

import "unsafe"

// A streamCopy is one piece of a valueCopier's list: n bytes, a positive
// multiple of 64, from src to dst, dst aligned to a cache line.
type streamCopy struct {
	dst, src *byte
	n        int
}

// copyStreaming makes the count copies of list with non-temporal stores,
// one after the other, and fences them once, after the last: every store
// it made is ordered before the stores that follow its return, on the
// thread it ran on (it cannot be preempted).
//
//go:noescape
func copyStreaming(list *streamCopy, count int)

// streamMin is the least a value must hold for a valueCopier to stream
// it: below it the cached copy costs as little. streamBatch is the most
// bytes and streamList the most pieces one copyStreaming call moves: the
// assembly cannot be preempted, so a call's values are copied in batches
// and a large value in pieces.
const (
	streamMin   = 1 << 10
	streamBatch = 256 << 10
	streamList  = 64
)

// A valueCopier copies the bytes of a call's new values (Put). A value
// put is seldom read again before it leaves the caches, so from streamMin
// bytes on, where dst is aligned to a cache line, its whole lines are
// written with non-temporal stores: they fill the lines without first
// reading them, and spare the caches. Their fence, which waits until the
// stores reached memory, is paid once a batch of up to streamBatch bytes
// (copyStreaming) instead of once a value: fenced per value, 4 KiB values
// copied at 0.6 times the rate (docs/benchmarks.md, "Put's non-temporal
// stores fenced once a batch"). The zero value is ready; call finish
// before the values are published.
type valueCopier struct {
	list  [streamList]streamCopy
	n     int // pieces in list
	bytes int // their bytes
}

// copy copies src into dst, as many bytes as the shorter holds, as the
// built-in copy does; the streamed lines are fenced by the next batch's
// copyStreaming or by finish.
func (c *valueCopier) copy(dst, src []byte) {
	n := min(len(dst), len(src))
	dst, src = dst[:n], src[:n]
	if n < streamMin || uintptr(unsafe.Pointer(unsafe.SliceData(dst)))&63 != 0 {
		copy(dst, src)
		return
	}
	for len(src) >= 64 {
		n := min(len(src), streamBatch) &^ 63
		if c.n == streamList || c.bytes+n > streamBatch {
			c.finish()
		}
		c.list[c.n] = streamCopy{dst: &dst[0], src: &src[0], n: n}
		c.n++
		c.bytes += n
		dst, src = dst[n:], src[n:]
	}
	copy(dst, src)
}

// finish makes the copies listed and fences them.
func (c *valueCopier) finish() {
	if c.n > 0 {
		copyStreaming(&c.list[0], c.n)
	}
	c.n, c.bytes = 0, 0
}
