package cuda

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"unsafe"
)

// CUDA driver constants kvctl uses.
const (
	memHostAllocPortable  = 0x01 // CU_MEMHOSTALLOC_PORTABLE
	memHostAllocDeviceMap = 0x02 // CU_MEMHOSTALLOC_DEVICEMAP
	memHostRegPortable    = 0x01 // CU_MEMHOSTREGISTER_PORTABLE
	memHostRegDeviceMap   = 0x02 // CU_MEMHOSTREGISTER_DEVICEMAP
	streamNonBlocking     = 0x01 // CU_STREAM_NON_BLOCKING
	eventDefault          = 0x00 // CU_EVENT_DEFAULT (timing enabled)

	attrMultiprocessors   = 16 // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	attrCanMapHostMemory  = 19 // CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY
	attrPCIBusID          = 33 // CU_DEVICE_ATTRIBUTE_PCI_BUS_ID
	attrPCIDeviceID       = 34 // CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID
	attrUnifiedAddressing = 41 // CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING
	attrPCIDomainID       = 50 // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID
	attrComputeMajor      = 75 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	attrComputeMinor      = 76 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
)

// cudaDevice is a GPU driven through the CUDA driver API, in its primary
// context.
type cudaDevice struct {
	lib  *driver
	dev  int32
	ctx  uintptr
	info Info

	mu     sync.RWMutex
	pinned []pinnedRange // sorted by device address

	modMu   sync.Mutex
	module  uintptr
	kernels map[string]*cudaKernel
}

var _ Device = (*cudaDevice)(nil)

// pinnedRange maps pinned host memory's device addresses to its host
// addresses, for the copy calls that take host pointers.
type pinnedRange struct {
	dev  uint64
	host uintptr
	n    uint64
}

// openDriverDevice opens CUDA device ordinal in its primary context.
func openDriverDevice(ordinal int) (*cudaDevice, error) {
	lib, err := loadDriver()
	if err != nil {
		return nil, err
	}
	var count int32
	if err := lib.check(lib.cuDeviceGetCount(&count), "cuDeviceGetCount"); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDriver, err)
	}
	if ordinal >= int(count) {
		return nil, fmt.Errorf("%w: cuda:%d: the driver sees %d CUDA devices", ErrNoDriver, ordinal, count)
	}
	d := &cudaDevice{lib: lib, kernels: map[string]*cudaKernel{}}
	if err := lib.check(lib.cuDeviceGet(&d.dev, int32(ordinal)), "cuDeviceGet"); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDriver, err)
	}
	if err := d.describe(ordinal); err != nil {
		return nil, fmt.Errorf("%w: cuda:%d: %w", ErrNoDriver, ordinal, err)
	}
	op := fmt.Sprintf("cuDevicePrimaryCtxRetain cuda:%d", ordinal)
	if err := lib.check(lib.cuDevicePrimaryCtxRetain(&d.ctx, d.dev), op); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDriver, err)
	}
	return d, nil
}

// describe fills d.info and checks the device can map host memory into a
// unified address space, which staging and direct mode rely on.
func (d *cudaDevice) describe(ordinal int) error {
	a, err := d.lib.deviceAttributes(d.dev, attrMultiprocessors, attrCanMapHostMemory, attrUnifiedAddressing, attrComputeMajor, attrComputeMinor)
	if err != nil {
		return err
	}
	if a[1] == 0 || a[2] == 0 {
		return fmt.Errorf("device cannot map host memory into a unified address space (map %d, unified %d)", a[1], a[2])
	}
	name, total, err := d.lib.deviceNameMemory(d.dev)
	if err != nil {
		return err
	}
	d.info = Info{
		Name:              name,
		Ordinal:           ordinal,
		ComputeCapability: fmt.Sprintf("%d.%d", a[3], a[4]),
		Multiprocessors:   int(a[0]),
		TotalMemory:       total,
		DriverVersion:     d.lib.version,
		BatchCopy:         d.lib.hasBatch(),
	}
	return nil
}

// deviceAttributes reads cuDeviceGetAttribute for each attribute.
func (d *driver) deviceAttributes(dev int32, attrs ...int32) ([]int32, error) {
	out := make([]int32, len(attrs))
	for i, a := range attrs {
		if err := d.check(d.cuDeviceGetAttribute(&out[i], a, dev), fmt.Sprintf("cuDeviceGetAttribute %d", a)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// deviceNameMemory reads a device's name and total memory.
func (d *driver) deviceNameMemory(dev int32) (string, int64, error) {
	buf := make([]byte, 256)
	if err := d.check(d.cuDeviceGetName(&buf[0], int32(len(buf)), dev), "cuDeviceGetName"); err != nil {
		return "", 0, err
	}
	var total uintptr
	if err := d.check(d.cuDeviceTotalMem(&total, dev), "cuDeviceTotalMem_v2"); err != nil {
		return "", 0, err
	}
	return cString(&buf[0], len(buf)), int64(total), nil
}

// Info describes the GPU.
func (d *cudaDevice) Info() Info { return d.info }

// bind makes the device's context current on this OS thread and keeps the
// goroutine there until the returned function runs.
func (d *cudaDevice) bind() (func(), error) {
	runtime.LockOSThread()
	if err := d.lib.check(callRaw(d.lib.rawCtxSetCurrent, d.ctx), "cuCtxSetCurrent"); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	return runtime.UnlockOSThread, nil
}

// call binds the context and runs fn.
func (d *cudaDevice) call(fn func() error) error {
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return fn()
}

// Alloc allocates device memory (cuMemAlloc_v2).
func (d *cudaDevice) Alloc(bytes int64) (DevPtr, error) {
	if bytes <= 0 {
		return 0, fmt.Errorf("alloc %d bytes: size must be positive", bytes)
	}
	var p uint64
	err := d.call(func() error {
		return d.lib.check(d.lib.cuMemAlloc(&p, uintptr(bytes)), fmt.Sprintf("cuMemAlloc_v2 %d bytes", bytes))
	})
	return DevPtr(p), err
}

// Free frees device memory (cuMemFree_v2).
func (d *cudaDevice) Free(p DevPtr) error {
	return d.call(func() error {
		return d.lib.check(d.lib.cuMemFree(uint64(p)), fmt.Sprintf("cuMemFree_v2 %#x", uint64(p)))
	})
}

// AllocHost allocates pinned, portable, device-mapped host memory
// (cuMemHostAlloc).
func (d *cudaDevice) AllocHost(bytes int64) (*HostMem, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("alloc host %d bytes: size must be positive", bytes)
	}
	var p unsafe.Pointer
	err := d.call(func() error {
		return d.lib.check(d.lib.cuMemHostAlloc(&p, uintptr(bytes), memHostAllocPortable|memHostAllocDeviceMap), fmt.Sprintf("cuMemHostAlloc %d bytes", bytes))
	})
	if err != nil {
		return nil, err
	}
	free := func() error {
		return d.call(func() error { return d.lib.check(d.lib.cuMemFreeHost(p), "cuMemFreeHost") })
	}
	return d.mapPinned(unsafe.Slice((*byte)(p), bytes), free)
}

// RegisterHost page-locks b and maps it into the device's address space
// (cuMemHostRegister_v2 with PORTABLE|DEVICEMAP).
func (d *cudaDevice) RegisterHost(b []byte) (*HostMem, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("register host memory: empty slice")
	}
	p := unsafe.Pointer(&b[0])
	err := d.call(func() error {
		return d.lib.check(d.lib.cuMemHostRegister(p, uintptr(len(b)), memHostRegPortable|memHostRegDeviceMap), fmt.Sprintf("cuMemHostRegister_v2 %d bytes", len(b)))
	})
	if err != nil {
		return nil, err
	}
	unregister := func() error {
		err := d.call(func() error { return d.lib.check(d.lib.cuMemHostUnregister(p), "cuMemHostUnregister") })
		runtime.KeepAlive(b)
		return err
	}
	return d.mapPinned(b, unregister)
}

// mapPinned looks up the device pointer of pinned memory b and records the
// mapping; release undoes the pinning.
func (d *cudaDevice) mapPinned(b []byte, release func() error) (*HostMem, error) {
	p := unsafe.Pointer(&b[0])
	var dp uint64
	err := d.call(func() error {
		return d.lib.check(d.lib.cuMemHostGetDevicePointer(&dp, p, 0), "cuMemHostGetDevicePointer_v2")
	})
	if err != nil {
		release()
		return nil, err
	}
	r := pinnedRange{dev: dp, host: uintptr(p), n: uint64(len(b))}
	d.mu.Lock()
	i := sort.Search(len(d.pinned), func(i int) bool { return d.pinned[i].dev >= dp })
	d.pinned = append(d.pinned, pinnedRange{})
	copy(d.pinned[i+1:], d.pinned[i:])
	d.pinned[i] = r
	d.mu.Unlock()
	unmap := func() error {
		d.mu.Lock()
		if j := sort.Search(len(d.pinned), func(j int) bool { return d.pinned[j].dev >= dp }); j < len(d.pinned) && d.pinned[j].dev == dp {
			d.pinned = append(d.pinned[:j], d.pinned[j+1:]...)
		}
		d.mu.Unlock()
		return release()
	}
	return &HostMem{b: b, ptr: DevPtr(dp), release: unmap}, nil
}

// hostAddr translates a device address of pinned host memory to its host
// address; d.mu must be held for reading.
func (d *cudaDevice) hostAddr(p DevPtr, n int64) (uintptr, error) {
	i := sort.Search(len(d.pinned), func(i int) bool { return d.pinned[i].dev > uint64(p) }) - 1
	if i < 0 || uint64(p)+uint64(n) > d.pinned[i].dev+d.pinned[i].n {
		return 0, fmt.Errorf("address %#x (%d bytes) is not pinned host memory", uint64(p), n)
	}
	r := d.pinned[i]
	return r.host + uintptr(uint64(p)-r.dev), nil
}

// pinnedEnd is the end of the pinned range holding p (pinnedRanges).
func (d *cudaDevice) pinnedEnd(p DevPtr) (DevPtr, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	i := sort.Search(len(d.pinned), func(i int) bool { return d.pinned[i].dev > uint64(p) }) - 1
	if i < 0 || uint64(p) >= d.pinned[i].dev+d.pinned[i].n {
		return 0, false
	}
	return DevPtr(d.pinned[i].dev + d.pinned[i].n), true
}

// Close unloads the kernels and releases the primary context.
func (d *cudaDevice) Close() error {
	d.modMu.Lock()
	defer d.modMu.Unlock()
	var err error
	if d.module != 0 {
		err = d.call(func() error { return d.lib.check(d.lib.cuModuleUnload(d.module), "cuModuleUnload") })
		d.module = 0
	}
	if d.ctx != 0 {
		if rerr := d.lib.check(d.lib.cuDevicePrimaryCtxRelease(d.dev), "cuDevicePrimaryCtxRelease"); err == nil {
			err = rerr
		}
		d.ctx = 0
	}
	return err
}
