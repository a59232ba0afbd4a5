package cuda

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// driverLibraries are the names tried, in order, to open the CUDA driver.
var driverLibraries = []string{"libcuda.so.1", "libcuda.so"}

// driver is the CUDA driver API bound at run time. Functions called once
// per operation go through purego.RegisterFunc; the per-region hot path
// (copies, stream and event calls, context binding) calls the raw symbols
// through purego.SyscallN, with addresses that are never Go stack memory.
type driver struct {
	version int

	cuInit                    func(flags uint32) int32
	cuDriverGetVersion        func(v *int32) int32
	cuGetErrorName            func(r int32, name **byte) int32
	cuDeviceGetCount          func(n *int32) int32
	cuDeviceGet               func(dev *int32, ordinal int32) int32
	cuDeviceGetName           func(name *byte, n int32, dev int32) int32
	cuDeviceTotalMem          func(bytes *uintptr, dev int32) int32
	cuDeviceGetAttribute      func(v *int32, attr int32, dev int32) int32
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, dev int32) int32
	cuDevicePrimaryCtxRelease func(dev int32) int32
	cuMemAlloc                func(p *uint64, n uintptr) int32
	cuMemFree                 func(p uint64) int32
	cuMemHostAlloc            func(p *unsafe.Pointer, n uintptr, flags uint32) int32
	cuMemFreeHost             func(p unsafe.Pointer) int32
	cuMemHostRegister         func(p unsafe.Pointer, n uintptr, flags uint32) int32
	cuMemHostUnregister       func(p unsafe.Pointer) int32
	cuMemHostGetDevicePointer func(d *uint64, p unsafe.Pointer, flags uint32) int32
	cuMemcpyHtoDAsyncGo       func(dst uint64, src unsafe.Pointer, n uintptr, s uintptr) int32
	cuMemcpyDtoHAsyncGo       func(dst unsafe.Pointer, src uint64, n uintptr, s uintptr) int32
	cuStreamCreate            func(s *uintptr, flags uint32) int32
	cuStreamDestroy           func(s uintptr) int32
	cuEventCreate             func(e *uintptr, flags uint32) int32
	cuEventDestroy            func(e uintptr) int32
	cuEventElapsedTime        func(ms *float32, start, end uintptr) int32
	cuModuleLoadDataEx        func(m *uintptr, image *byte, n uint32, opts *int32, vals *uintptr) int32
	cuModuleGetFunction       func(f *uintptr, m uintptr, name string) int32
	cuModuleUnload            func(m uintptr) int32
	cuLaunchKernel            func(f uintptr, gx, gy, gz, bx, by, bz, shmem uint32, s uintptr, params *unsafe.Pointer, extra unsafe.Pointer) int32

	// Optional: cuMemcpyBatchAsync_v2 (CUDA 13, no failIdx) or
	// cuMemcpyBatchAsync (CUDA 12.8, with failIdx); both nil before 12.8.
	cuMemcpyBatchAsyncV2 func(dsts, srcs []uint64, sizes []uintptr, count uintptr, attrs *memcpyAttributes, attrIdxs []uintptr, numAttrs uintptr, s uintptr) int32
	cuMemcpyBatchAsyncV1 func(dsts, srcs []uint64, sizes []uintptr, count uintptr, attrs *memcpyAttributes, attrIdxs []uintptr, numAttrs uintptr, failIdx *uintptr, s uintptr) int32

	// Raw symbols for purego.SyscallN.
	rawCtxSetCurrent     uintptr
	rawMemcpyHtoDAsync   uintptr
	rawMemcpyDtoHAsync   uintptr
	rawMemcpyDtoDAsync   uintptr
	rawStreamSynchronize uintptr
	rawStreamWaitEvent   uintptr
	rawEventRecord       uintptr
	rawEventSynchronize  uintptr
}

// memcpyAttributes is CUmemcpyAttributes: srcAccessOrder, srcLocHint
// {type, id}, dstLocHint {type, id}, flags; 24 bytes, no padding.
type memcpyAttributes struct {
	srcAccessOrder int32
	srcLocType     int32
	srcLocID       int32
	dstLocType     int32
	dstLocID       int32
	flags          uint32
}

// memcpySrcAccessOrderStream is CU_MEMCPY_SRC_ACCESS_ORDER_STREAM.
const memcpySrcAccessOrderStream = 1

var (
	driverOnce sync.Once
	driverLib  *driver
	driverErr  error
)

// loadDriver opens libcuda and runs cuInit once per process. Its error
// wraps ErrNoDriver.
func loadDriver() (*driver, error) {
	driverOnce.Do(func() {
		driverLib, driverErr = openDriver()
		if driverErr != nil {
			driverErr = fmt.Errorf("%w: %w", ErrNoDriver, driverErr)
		}
	})
	return driverLib, driverErr
}

func openDriver() (*driver, error) {
	handle, err := openLibrary(driverLibraries)
	if err != nil {
		return nil, err
	}
	d := &driver{}
	if err := d.bind(handle); err != nil {
		return nil, err
	}
	if err := d.check(d.cuInit(0), "cuInit"); err != nil {
		return nil, err
	}
	var v int32
	if err := d.check(d.cuDriverGetVersion(&v), "cuDriverGetVersion"); err != nil {
		return nil, err
	}
	d.version = int(v)
	return d, nil
}

// openLibrary opens the first of names that loads.
func openLibrary(names []string) (uintptr, error) {
	var errs []error
	for _, name := range names {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			return h, nil
		}
		errs = append(errs, err)
	}
	return 0, fmt.Errorf("opening %s: %w", names[0], joinErrors(errs...))
}

// symbol binds one driver function: the first of names the library has.
type symbol struct {
	names    []string
	fn       any      // pointer to a func variable, for purego.RegisterFunc
	raw      *uintptr // or where to store the raw address
	optional bool
}

func (d *driver) symbols() []symbol {
	return []symbol{
		{names: []string{"cuInit"}, fn: &d.cuInit},
		{names: []string{"cuDriverGetVersion"}, fn: &d.cuDriverGetVersion},
		{names: []string{"cuGetErrorName"}, fn: &d.cuGetErrorName},
		{names: []string{"cuDeviceGetCount"}, fn: &d.cuDeviceGetCount},
		{names: []string{"cuDeviceGet"}, fn: &d.cuDeviceGet},
		{names: []string{"cuDeviceGetName"}, fn: &d.cuDeviceGetName},
		{names: []string{"cuDeviceTotalMem_v2"}, fn: &d.cuDeviceTotalMem},
		{names: []string{"cuDeviceGetAttribute"}, fn: &d.cuDeviceGetAttribute},
		{names: []string{"cuDevicePrimaryCtxRetain"}, fn: &d.cuDevicePrimaryCtxRetain},
		{names: []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, fn: &d.cuDevicePrimaryCtxRelease},
		{names: []string{"cuCtxSetCurrent"}, raw: &d.rawCtxSetCurrent},
		{names: []string{"cuMemAlloc_v2"}, fn: &d.cuMemAlloc},
		{names: []string{"cuMemFree_v2"}, fn: &d.cuMemFree},
		{names: []string{"cuMemHostAlloc"}, fn: &d.cuMemHostAlloc},
		{names: []string{"cuMemFreeHost"}, fn: &d.cuMemFreeHost},
		{names: []string{"cuMemHostRegister_v2", "cuMemHostRegister"}, fn: &d.cuMemHostRegister},
		{names: []string{"cuMemHostUnregister"}, fn: &d.cuMemHostUnregister},
		{names: []string{"cuMemHostGetDevicePointer_v2"}, fn: &d.cuMemHostGetDevicePointer},
		{names: []string{"cuMemcpyHtoDAsync_v2"}, fn: &d.cuMemcpyHtoDAsyncGo, raw: &d.rawMemcpyHtoDAsync},
		{names: []string{"cuMemcpyDtoHAsync_v2"}, fn: &d.cuMemcpyDtoHAsyncGo, raw: &d.rawMemcpyDtoHAsync},
		{names: []string{"cuMemcpyDtoDAsync_v2"}, raw: &d.rawMemcpyDtoDAsync},
		{names: []string{"cuStreamCreate"}, fn: &d.cuStreamCreate},
		{names: []string{"cuStreamDestroy_v2"}, fn: &d.cuStreamDestroy},
		{names: []string{"cuStreamSynchronize"}, raw: &d.rawStreamSynchronize},
		{names: []string{"cuStreamWaitEvent"}, raw: &d.rawStreamWaitEvent},
		{names: []string{"cuEventCreate"}, fn: &d.cuEventCreate},
		{names: []string{"cuEventDestroy_v2"}, fn: &d.cuEventDestroy},
		{names: []string{"cuEventRecord"}, raw: &d.rawEventRecord},
		{names: []string{"cuEventSynchronize"}, raw: &d.rawEventSynchronize},
		{names: []string{"cuEventElapsedTime_v2", "cuEventElapsedTime"}, fn: &d.cuEventElapsedTime},
		{names: []string{"cuModuleLoadDataEx"}, fn: &d.cuModuleLoadDataEx},
		{names: []string{"cuModuleGetFunction"}, fn: &d.cuModuleGetFunction},
		{names: []string{"cuModuleUnload"}, fn: &d.cuModuleUnload},
		{names: []string{"cuLaunchKernel"}, fn: &d.cuLaunchKernel},
		{names: []string{"cuMemcpyBatchAsync_v2"}, fn: &d.cuMemcpyBatchAsyncV2, optional: true},
		{names: []string{"cuMemcpyBatchAsync"}, fn: &d.cuMemcpyBatchAsyncV1, optional: true},
	}
}

// bind looks every symbol up; a missing required one is an error naming it
// (a driver older than CUDA 11).
func (d *driver) bind(handle uintptr) error {
	if err := bindSymbols(handle, d.symbols()); err != nil {
		return fmt.Errorf("driver too old: %w", err)
	}
	return nil
}

// bindSymbols looks every symbol up in the library handle and binds it; a
// missing required one is an error naming it.
func bindSymbols(handle uintptr, syms []symbol) error {
	for _, s := range syms {
		addr, err := lookup(handle, s.names)
		if err != nil {
			if s.optional {
				continue
			}
			return err
		}
		if s.fn != nil {
			purego.RegisterFunc(s.fn, addr)
		}
		if s.raw != nil {
			*s.raw = addr
		}
	}
	return nil
}

func lookup(handle uintptr, names []string) (uintptr, error) {
	var last error
	for _, n := range names {
		addr, err := purego.Dlsym(handle, n)
		if err == nil && addr != 0 {
			return addr, nil
		}
		last = err
	}
	return 0, fmt.Errorf("symbol %s not found: %v", names[0], last)
}

// hasBatch reports whether cuMemcpyBatchAsync is available.
func (d *driver) hasBatch() bool {
	return d.cuMemcpyBatchAsyncV2 != nil || d.cuMemcpyBatchAsyncV1 != nil
}

// callRaw calls a raw driver symbol and returns its CUresult.
func callRaw(fn uintptr, args ...uintptr) int32 {
	r, _, _ := purego.SyscallN(fn, args...)
	return int32(uint32(r))
}
