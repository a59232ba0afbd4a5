//go:build amd64 && !purego

package prefetch

import "unsafe"

// Line asks for the cache line holding p to be loaded; it never faults,
// and reads nothing the program sees.
//
//go:noescape
func Line(p unsafe.Pointer)
