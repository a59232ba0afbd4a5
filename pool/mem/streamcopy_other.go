//go:build !amd64 || purego

package mem

// copyValue copies src into dst (len(dst) == len(src)), the bytes of a
// new value.
func copyValue(dst, src []byte) { copy(dst, src) }
