package cuda

import (
	"fmt"
	"unsafe"
)

// Error is a failed CUDA driver call.
type Error struct {
	// Op is the driver function and, where useful, its input.
	Op string
	// Code is the CUresult.
	Code int
	// Name is the CUresult's name, such as CUDA_ERROR_OUT_OF_MEMORY.
	Name string
}

// Error formats the failure as "cuMemAlloc_v2 1048576 bytes:
// CUDA_ERROR_OUT_OF_MEMORY (2)".
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (%d)", e.Op, e.Name, e.Code)
}

// check turns a CUresult into nil or an *Error naming op.
func (d *driver) check(r int32, op string) error {
	if r == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(r), Name: d.errorName(r)}
}

// errorName asks the driver for a CUresult's name.
func (d *driver) errorName(r int32) string {
	var p *byte
	if d.cuGetErrorName == nil || d.cuGetErrorName(r, &p) != 0 || p == nil {
		return fmt.Sprintf("CUDA_ERROR_%d", r)
	}
	return cString(p, 128)
}

// cString reads a NUL-terminated string of at most limit bytes from C
// memory.
func cString(p *byte, limit int) string {
	n := 0
	for n < limit && *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
