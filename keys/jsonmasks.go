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
// It needs useAVX2 (AVX2, BMI1 and BMI2); callers check shortTokenAt(data,
// i) first.
func maskTokens(dst []int64, data []byte, i int) ([]int64, int) {
	var classes [maxClassBlocks + 1]byteClasses
	out := dst[:cap(dst)]
	k := len(dst)
	for blocks := 2; ; blocks = min(2*blocks, maxClassBlocks) {
		n := min(blocks, (len(data)-i-8)/64)
		if n < 1 || k == len(out) || !shortTokenAt(data, i) {
			return out[:k], i
		}
		chunk := data[i : i+64*n+8]
		classify(classes[:n], chunk)
		classes[n] = byteClasses{}
		var used int
		k, used = chunkTokens(out, k, chunk, &classes, n)
		if used == 0 {
			return out[:k], i
		}
		i += used
	}
}

// shortTokenAt reports whether data[i:] starts with 1 to 7 digits and
// has 8 bytes: a token a fast path may take. A long token, or a sign, is
// cheaper to see here than through a chunk's classes.
func shortTokenAt(data []byte, i int) bool {
	if i+8 > len(data) {
		return false
	}
	n := leadingDigits(binary.LittleEndian.Uint64(data[i:]))
	return n > 0 && n < 8
}

// chunkTokens converts the tokens of a chunk of n classified blocks, one
// 64-byte window at a time, from the chunk's start while a whole window
// is classified (classes[n] is zero). It returns the new length of out
// and how many bytes of the chunk it used (0 when it took no token).
func chunkTokens(out []int64, k int, chunk []byte, classes *[maxClassBlocks + 1]byteClasses, n int) (int, int) {
	pos := 0
	for pos+64 <= 64*n && k < len(out) {
		starts, commas := windowBounds(classes, pos)
		var used int
		k, used = windowTokens(out, k, (*[64 + 8]byte)(chunk[pos:]), starts, commas)
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

// windowTokens converts the tokens of the 64-byte window at text[0]
// whose first bytes and commas windowBounds found, as many as out has
// room for. It
// returns the new length of out and the offset just past the last
// token's comma, 0 when it took none.
func windowTokens(out []int64, k int, text *[64 + 8]byte, starts, commas uint64) (int, int) {
	n := bits.OnesCount64(commas)
	for ; n > len(out)-k; n-- {
		commas &^= 1 << (63 - bits.LeadingZeros64(commas)) // no room for the last
	}
	if n == 0 {
		return k, 0
	}
	convertTokensBMI2(&out[k], &text[0], starts, commas)
	return k + n, 64 - bits.LeadingZeros64(commas)
}

// windowBounds returns the first bytes of the tokens of the 64-byte
// window at pos (which classes cover) and the commas that end the tokens
// before the first byte that breaks the pattern. Each byte is checked
// against the one before it: a digit follows a digit (at most seven in a
// row, not after a leading '0') or starts a token; a comma follows a
// digit; a space follows a comma; nothing else may appear. So every comma
// before the first bad byte ends a token that starts after the comma
// before it, or at the window's start (which is bad unless it is a digit:
// nothing comes before it).
func windowBounds(classes *[maxClassBlocks + 1]byteClasses, pos int) (starts, commas uint64) {
	lo, hi := &classes[pos>>6&(maxClassBlocks-1)], &classes[pos>>6&(maxClassBlocks-1)+1]
	sh := uint(pos & 63)
	d := lo.digit>>sh | hi.digit<<(64-sh) // hi<<64 is 0
	c := lo.comma>>sh | hi.comma<<(64-sh)
	s := lo.space>>sh | hi.space<<(64-sh)
	zero := lo.zero>>sh | hi.zero<<(64-sh)
	starts = d &^ (d << 1)
	run := d & (d << 1) // bit p: bytes p-1..p are digits
	run &= run << 2     // p-3..p
	run &= run << 4     // p-7..p: an eighth digit in a row
	bad := ^(d | c | s) |
		c&^(d<<1) |
		s&^(c<<1) |
		run |
		starts&zero&(d>>1)
	below := uint64(1)<<uint(bits.TrailingZeros64(bad)) - 1 // every bit when bad is 0
	return starts, c & below
}
