//go:build !amd64 || purego

package mem

// copyValue copies src into dst, as many bytes as the shorter holds, as
// copy does: the bytes of a new value.
func copyValue(dst, src []byte) { copy(dst, src) }
