//go:build !amd64 || purego

package mem

// A valueCopier copies the bytes of a call's new values (Put) with the
// built-in copy where there are no non-temporal stores to write them
// with. The zero value is ready; call finish before the values are
// published.
type valueCopier struct{}

// copy copies src into dst, as many bytes as the shorter holds, as the
// built-in copy does.
func (c *valueCopier) copy(dst, src []byte) { copy(dst, src) }

// finish does nothing: the copies are made.
func (c *valueCopier) finish() {}
