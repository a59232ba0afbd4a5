//go:build !amd64 || purego

package keys

// useAVX2 is false: the fast token path has no assembly on this platform.
var useAVX2 = false

func classifyAVX2(*byteClasses, *byte, int) {
	panic("keys: classifyAVX2 is not available on this platform")
}

func convertTokensBMI2(*int64, *byte, uint64, uint64) {
	panic("keys: convertTokensBMI2 is not available on this platform")
}
