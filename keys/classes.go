package keys

import "encoding/binary"

// byteClasses marks what 64 bytes of token input are, bit k for byte k:
// ASCII digits, the digit '0', commas and spaces. The fast JSON token path
// (maskTokens) reads its input through these masks.
type byteClasses struct {
	digit, zero, comma, space uint64
}

// classify fills out with the classes of data's first len(out) 64-byte
// blocks, with AVX2 where the CPU has it (classifyGeneric otherwise). It
// panics if data is shorter.
func classify(out []byteClasses, data []byte) {
	if len(data) < 64*len(out) {
		panic("keys: classify: data shorter than its blocks")
	}
	if len(out) == 0 {
		return
	}
	if useAVX2 {
		classifyAVX2(&out[0], &data[0], len(out))
		return
	}
	classifyGeneric(out, data)
}

// classifyGeneric is classify in plain Go, eight bytes at a time.
func classifyGeneric(out []byteClasses, data []byte) {
	for b := range out {
		var c byteClasses
		for w := range 8 {
			x := binary.LittleEndian.Uint64(data[64*b+8*w:])
			shift := uint(8 * w)
			c.digit |= gatherHighBits(digitBytes(x)) << shift
			c.zero |= gatherHighBits(bytesEqual(x, '0')) << shift
			c.comma |= gatherHighBits(bytesEqual(x, ',')) << shift
			c.space |= gatherHighBits(bytesEqual(x, ' ')) << shift
		}
		out[b] = c
	}
}

// digitBytes sets the high bit of each byte of x that is an ASCII digit,
// and no other bit.
func digitBytes(x uint64) uint64 {
	low := x & lowBits7
	tooBig := low + 0x4646464646464646    // high bit set when low >= ':'
	bigEnough := low + 0x5050505050505050 // high bit set when low >= '0'
	return ^(tooBig | ^bigEnough | x) & highBits
}

// bytesEqual sets the high bit of each byte of x that equals c, and no
// other bit.
func bytesEqual(x uint64, c byte) uint64 {
	y := x ^ (0x0101010101010101 * uint64(c)) // zero where x has c
	return ^(((y & lowBits7) + lowBits7) | y) & highBits
}

// gatherHighBits packs the high bits of the eight bytes of m (which has
// no other bits set) into its low byte, the first byte's in bit 0.
func gatherHighBits(m uint64) uint64 {
	return (m >> 7) * 0x0102040810204080 >> 56
}
