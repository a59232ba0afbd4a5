//go:build amd64 && !purego

package streamcopy

import "unsafe"

// A piece is one copy of a Copier's batch: n bytes, a positive multiple
// of 64, from src to dst, dst aligned to a cache line.
type piece struct {
	dst, src *byte
	n        int
}

// copyStreaming makes the count copies of list with non-temporal stores,
// one after the other, and fences them once, after the last: every store
// it made is ordered before the stores that follow its return, on the
// thread it ran on (it cannot be preempted).
//
//go:noescape
func copyStreaming(list *piece, count int)

// minBytes is the least a copy must move for a Copier to stream it:
// below it the cached copy costs as little. batchBytes is the most bytes
// and batchPieces the most pieces one copyStreaming call moves: the
// assembly cannot be preempted, so the copies are made in batches and a
// large one in pieces.
const (
	minBytes    = 1 << 10
	batchBytes  = 256 << 10
	batchPieces = 64
)

// A Copier copies byte slices whose bytes are not read again soon,
// streaming from 1 KiB on where the destination is aligned to a cache
// line (the package doc says how), and fences its stores once a batch.
// The zero value is ready. Call Finish before the bytes copied are made
// visible to other goroutines: until then some may not be copied yet.
type Copier struct {
	batch [batchPieces]piece
	n     int // pieces in batch
	bytes int // their bytes
}

// Copy copies src into dst, as many bytes as the shorter holds, as the
// built-in copy does, now or in the batch that Finish or a later Copy
// makes: src and dst must stay as they are until Finish returns.
func (c *Copier) Copy(dst, src []byte) {
	n := min(len(dst), len(src))
	dst, src = dst[:n], src[:n]
	if n < minBytes || uintptr(unsafe.Pointer(unsafe.SliceData(dst)))&63 != 0 {
		copy(dst, src)
		return
	}
	for len(src) >= 64 {
		n := min(len(src), batchBytes) &^ 63
		if c.n == batchPieces || c.bytes+n > batchBytes {
			c.Finish()
		}
		c.batch[c.n] = piece{dst: &dst[0], src: &src[0], n: n}
		c.n++
		c.bytes += n
		dst, src = dst[n:], src[n:]
	}
	copy(dst, src)
}

// Finish makes the copies of the batch and fences every store made.
func (c *Copier) Finish() {
	if c.n > 0 {
		copyStreaming(&c.batch[0], c.n)
	}
	c.n, c.bytes = 0, 0
}
