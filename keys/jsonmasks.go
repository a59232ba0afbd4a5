package keys

import (
	"encoding/binary"
	"math/bits"
)

// maxClassBlocks is the most 64-byte blocks maskTokens classifies at once.
const maxClassBlocks = 32

// maskTokens is the fast path of AppendJSONTokens for long arrays of short
// tokens. It classifies the input 64 bytes at a time into bit masks
// (classify) and reads from the masks where each token starts and ends,
// so that the tokens of a window are converted independently of each
// other rather than each one waiting for the scan of the one before.
//
// It appends the tokens at data[i:] (data[i] a token's first byte) that
// are integers of 1 to 7 digits without a leading zero, each followed by
// "," or ", ", while dst has room, and returns where it stopped: at a
// token it leaves to the slower paths, or within 72 bytes of the end.
func maskTokens(dst []int64, data []byte, i int) ([]int64, int) {
	var classes [maxClassBlocks + 1]byteClasses
	out := dst[:cap(dst)]
	k := len(dst)
	for blocks := 2; ; blocks = min(2*blocks, maxClassBlocks) {
		n := min(blocks, (len(data)-i-8)/64)
		if n < 1 || k == len(out) || data[i]-'0' > 9 {
			return out[:k], i
		}
		chunk := data[i : i+64*n+8]
		classify(classes[:n], chunk)
		classes[n] = byteClasses{}
		var used int
		k, used = chunkTokens(out, k, chunk, classes[:n+1])
		if used == 0 {
			return out[:k], i
		}
		i += used
	}
}

// chunkTokens converts the tokens of a classified chunk, one 64-byte
// window at a time, from the chunk's start while a whole window is
// classified. It returns the new length of out and how many bytes of the
// chunk it used (0 when it took no token).
func chunkTokens(out []int64, k int, chunk []byte, classes []byteClasses) (int, int) {
	pos := 0
	limit := 64 * (len(classes) - 1)
	for pos+64 <= limit && k < len(out) {
		w := windowAt(classes, pos)
		var used int
		k, used = windowTokens(out, k, (*[64 + 8]byte)(chunk[pos:]), w)
		if used == 0 {
			break
		}
		pos += used
		if chunk[pos] == ' ' { // ", " as json.dumps writes it
			pos++
		}
	}
	return k, pos
}

// windowAt returns the classes of the 64 bytes at pos: classes[pos/64]
// and the next block (which must exist) shifted together.
func windowAt(classes []byteClasses, pos int) byteClasses {
	b, s := pos>>6, uint(pos&63)
	lo, hi := classes[b], classes[b+1]
	join := func(l, h uint64) uint64 { return l>>s | h<<(64-s) } // h<<64 is 0
	return byteClasses{
		digit: join(lo.digit, hi.digit),
		zero:  join(lo.zero, hi.zero),
		comma: join(lo.comma, hi.comma),
		space: join(lo.space, hi.space),
	}
}

// windowTokens converts the tokens of the 64-byte window at text[0]
// (text[0] a token's first byte) whose comma comes before the first byte
// that breaks the pattern: tokens of 1 to 7 digits without a leading
// zero, each followed by "," or ", ". It returns the new length of out
// and the offset just past the last token's comma, 0 when it took none.
func windowTokens(out []int64, k int, text *[64 + 8]byte, w byteClasses) (int, int) {
	starts, take := tokenBounds(w)
	last := -1
	for take != 0 && k < len(out) {
		s := bits.TrailingZeros64(starts) & 63
		comma := bits.TrailingZeros64(take)
		starts &= starts - 1
		take &= take - 1
		x := binary.LittleEndian.Uint64(text[s : s+8])
		out[k] = int64(digitsValue(x, comma-s))
		k++
		last = comma
	}
	return k, last + 1
}

// tokenBounds returns the first bytes of the window's tokens and the
// commas that end the tokens before the first byte that breaks the
// pattern. Each byte is checked against the one before it: a digit
// follows a digit (at most seven in a row, not after a leading '0') or
// starts a token; a comma follows a digit; a space follows a comma;
// nothing else may appear. So every comma before the first bad byte ends
// a token that starts after the comma before it, or at the window's
// start (which is bad unless it is a digit: nothing comes before it).
func tokenBounds(w byteClasses) (starts, commas uint64) {
	d, c, s := w.digit, w.comma, w.space
	starts = d &^ (d << 1)
	run := d & (d << 1) // bit p: bytes p-1..p are digits
	run &= run << 2     // p-3..p
	run &= run << 4     // p-7..p: an eighth digit in a row
	bad := ^(d | c | s) |
		c&^(d<<1) |
		s&^(c<<1) |
		run |
		starts&w.zero&(d>>1)
	below := uint64(1)<<uint(bits.TrailingZeros64(bad)) - 1 // every bit when bad is 0
	return starts, c & below
}
