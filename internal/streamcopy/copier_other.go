//go:build !amd64 || purego

package streamcopy

// A Copier copies byte slices with the built-in copy where there are no
// non-temporal stores to write them with. The zero value is ready; Finish
// does nothing, but callers call it as they would on amd64.
type Copier struct{}

// Copy copies src into dst, as many bytes as the shorter holds, as the
// built-in copy does.
func (c *Copier) Copy(dst, src []byte) { copy(dst, src) }

// Finish does nothing: the copies are made.
func (c *Copier) Finish() {}
