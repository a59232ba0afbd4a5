// Package cuda is kvctl's small view of a GPU: device memory, pinned host
// memory, streams, events, asynchronous copies and kernel launches, behind
// one Device interface with two implementations.
//
// The CUDA implementation binds the CUDA driver API (libcuda.so.1) at run
// time through github.com/ebitengine/purego: no cgo, no headers, one binary
// for GPU and CPU machines, drivers of CUDA 11 to 13. Every driver call's
// result is checked and errors carry the driver's error name
// (cuGetErrorName). Without a driver, Open returns an error wrapping
// ErrNoDriver; nothing exits or panics.
//
// The host implementation emulates a device in plain Go memory: device
// pointers are addresses in an emulated address space, streams are
// goroutines executing queued operations in order, events measure elapsed
// wall time and kernels are Go functions. Open("auto") picks it when no GPU
// is usable and says why in Info().Fallback.
//
// The scatter and gather kernels (kernels/transfer.cu) are compiled to PTX,
// committed beside their source and embedded; the driver JIT-compiles them
// for the GPU at hand. A Copier moves batches of regions in one of three
// modes (memcpy, kernel, batch); in kernel mode descriptors go through a
// ring of mapped pinned buffers, and runs of adjacent host regions of at
// least 1 MiB can move with the copy engine through device bounce buffers
// (SetBounce), moved on a stream of their own while the kernel of the
// next or last call runs (SetOverlap). A DescSet is a kernel-mode set of
// copies described ahead, part by part and from several goroutines, into
// buffers of its own (each run's host side at its copy's place in the
// set's bounce buffer, runs across parts joined at launch or ahead of it:
// DescSet.Join), which Copier.LaunchSet launches; a RunWriter describes a
// part that is one run (a staged set) piece by piece. Discover lists GPUs through NVML (libnvidia-ml.so.1, bound
// at run time through purego as the driver is) or, failing that, through
// the CUDA driver.
package cuda
