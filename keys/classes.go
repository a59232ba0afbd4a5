package keys

// byteClasses marks what 64 bytes of token input are, bit k for byte k:
// ASCII digits, the digit '0', commas and spaces. The fast JSON token path
// (maskTokens) reads its input through these masks.
type byteClasses struct {
	digit, zero, comma, space uint64
}

// classify fills out with the classes of data's first len(out) 64-byte
// blocks. It needs useAVX2, and panics if data is shorter.
func classify(out []byteClasses, data []byte) {
	if len(data) < 64*len(out) {
		panic("keys: classify: data shorter than its blocks")
	}
	if len(out) > 0 {
		classifyAVX2(&out[0], &data[0], len(out))
	}
}
