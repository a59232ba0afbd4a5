//go:build !amd64 || purego

package keys

// useAVX2 is false: there is no AVX2 classifier on this platform.
var useAVX2 = false

func classifyAVX2(*byteClasses, *byte, int) {
	panic("keys: classifyAVX2 is not available on this platform")
}
