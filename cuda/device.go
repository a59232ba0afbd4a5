package cuda

import (
	"errors"
	"time"
)

// DevPtr is an address a device can use: device memory, or pinned host
// memory mapped into the device's address space.
type DevPtr uint64

// Add returns p advanced by n bytes.
func (p DevPtr) Add(n int64) DevPtr { return p + DevPtr(n) }

// Dim3 is a launch dimension (grid or block).
type Dim3 struct{ X, Y, Z uint32 }

// Dim returns the one-dimensional Dim3 {x, 1, 1}.
func Dim(x uint32) Dim3 { return Dim3{X: x, Y: 1, Z: 1} }

// normalized returns d with zero Y and Z taken as 1.
func (d Dim3) normalized() Dim3 {
	d.Y, d.Z = max(d.Y, 1), max(d.Z, 1)
	return d
}

// CopyKind is the direction of a copy.
type CopyKind int

// The copy directions.
const (
	HostToDevice CopyKind = iota
	DeviceToHost
	DeviceToDevice
)

// String names the direction: "h2d", "d2h" or "d2d".
func (k CopyKind) String() string {
	switch k {
	case HostToDevice:
		return "h2d"
	case DeviceToHost:
		return "d2h"
	case DeviceToDevice:
		return "d2d"
	}
	return "unknown"
}

// Copy is one region to copy: Bytes bytes from Src to Dst. Host-side
// addresses are the device pointers of pinned host memory (HostMem.Ptr).
type Copy struct {
	Dst   DevPtr
	Src   DevPtr
	Bytes int64
}

// Info describes an opened device.
type Info struct {
	// Name is the GPU's name, or "host emulation".
	Name string
	// Emulated is true for the host implementation.
	Emulated bool
	// Ordinal is the CUDA device ordinal (0 for host emulation).
	Ordinal int
	// ComputeCapability is "9.0" style; empty for host emulation.
	ComputeCapability string
	// Multiprocessors is the SM count (the CPU count for host emulation).
	Multiprocessors int
	// TotalMemory is the device memory in bytes (0 when unknown).
	TotalMemory int64
	// DriverVersion is cuDriverGetVersion's number, such as 13000 (0 for
	// host emulation).
	DriverVersion int
	// BatchCopy reports whether MemcpyBatch is available.
	BatchCopy bool
	// Fallback says why Open("auto") fell back to host emulation; empty
	// otherwise.
	Fallback string
}

// Device is a GPU, or its emulation. Methods are safe for concurrent use;
// operations on one stream run in the order they were queued. Asynchronous
// operations report failures either at once or at the stream's next
// Synchronize.
type Device interface {
	// Info describes the device.
	Info() Info

	// Alloc allocates bytes of device memory.
	Alloc(bytes int64) (DevPtr, error)
	// Free frees memory from Alloc.
	Free(p DevPtr) error

	// AllocHost allocates pinned host memory mapped into the device's
	// address space.
	AllocHost(bytes int64) (*HostMem, error)
	// RegisterHost pins existing host memory (such as a pool's arenas) and
	// maps it into the device's address space; HostMem.Close unregisters it.
	RegisterHost(b []byte) (*HostMem, error)

	// NewStream creates a stream.
	NewStream() (Stream, error)
	// NewEvent creates an event that can time.
	NewEvent() (Event, error)

	// CopyHtoD queues a copy of src to dst. src must stay untouched until
	// the stream is synchronized.
	CopyHtoD(s Stream, dst DevPtr, src []byte) error
	// CopyDtoH queues a copy of len(dst) bytes at src into dst, which must
	// not be read until the stream is synchronized.
	CopyDtoH(s Stream, dst []byte, src DevPtr) error
	// Memcpy queues one asynchronous copy per element of copies, in order
	// (cuMemcpy*Async): the way a connector copies region by region.
	Memcpy(s Stream, kind CopyKind, copies []Copy) error
	// MemcpyBatch queues copies as one batch (cuMemcpyBatchAsync, CUDA
	// 12.8 and later); it returns an error wrapping ErrUnsupported where the
	// driver lacks it.
	MemcpyBatch(s Stream, kind CopyKind, copies []Copy) error

	// Kernel finds a kernel of the embedded module (KernelScatter,
	// KernelGather).
	Kernel(name string) (Kernel, error)
	// Launch queues a kernel launch. Every argument is passed as a 64-bit
	// value (kernels take pointers and 64-bit integers only).
	Launch(s Stream, k Kernel, grid, block Dim3, args ...uint64) error

	// Close releases the device; memory, streams and events not freed yet
	// must not be used afterwards.
	Close() error
}

// Stream is an ordered queue of device work.
type Stream interface {
	// Synchronize waits until all queued work finished and returns the
	// first error an asynchronous operation met.
	Synchronize() error
	// WaitEvent makes later work on the stream wait for the event's
	// completion (without blocking the caller).
	WaitEvent(e Event) error
	// Destroy releases the stream after its work finished.
	Destroy() error
}

// Event marks a point in a stream.
type Event interface {
	// Record marks the current end of the stream's work.
	Record(s Stream) error
	// Synchronize waits until the recorded work finished; it returns at
	// once for an event never recorded.
	Synchronize() error
	// Since returns the time between start's completion and this event's;
	// both must have been recorded and completed.
	Since(start Event) (time.Duration, error)
	// Destroy releases the event.
	Destroy() error
}

// Kernel is a kernel function of a device.
type Kernel interface {
	// Name is the kernel's name.
	Name() string
}

// HostMem is pinned host memory the device can reach: its bytes for the
// host and its device pointer for kernels and copies.
type HostMem struct {
	b       []byte
	ptr     DevPtr
	release func() error
}

// Bytes returns the memory as a byte slice.
func (h *HostMem) Bytes() []byte { return h.b }

// Ptr returns the device address of the first byte.
func (h *HostMem) Ptr() DevPtr { return h.ptr }

// Len returns the size in bytes.
func (h *HostMem) Len() int64 { return int64(len(h.b)) }

// Close frees (or unregisters) the memory; the byte slice must not be used
// afterwards when the memory was allocated by AllocHost.
func (h *HostMem) Close() error {
	if h.release == nil {
		return nil
	}
	r := h.release
	h.release = nil
	return r()
}

// Errors the package wraps.
var (
	// ErrNoDriver is wrapped when the CUDA driver or the asked device is
	// unavailable (no libcuda.so.1, cuInit failed, no such device);
	// commands map it to exit code 5.
	ErrNoDriver = errors.New("cuda driver unavailable")
	// ErrUnsupported is wrapped when the driver lacks an optional feature,
	// such as cuMemcpyBatchAsync.
	ErrUnsupported = errors.New("not supported by this cuda driver")
	// ErrBadSpec is wrapped when Open's device spec cannot be parsed.
	ErrBadSpec = errors.New("bad device spec")
)
