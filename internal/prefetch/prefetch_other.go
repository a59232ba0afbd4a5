//go:build !amd64 || purego

package prefetch

import "unsafe"

// Line does nothing here: the line is read when it is used.
func Line(unsafe.Pointer) {}
