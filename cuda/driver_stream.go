package cuda

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"
)

// cudaStream is a non-blocking CUDA stream.
type cudaStream struct {
	d *cudaDevice
	h uintptr
}

// cudaEvent is a timing CUDA event.
type cudaEvent struct {
	d *cudaDevice
	h uintptr
}

// cudaKernel is a function of the loaded module.
type cudaKernel struct {
	name string
	fn   uintptr
}

// Name is the kernel's name.
func (k *cudaKernel) Name() string { return k.name }

// NewStream creates a non-blocking stream (cuStreamCreate).
func (d *cudaDevice) NewStream() (Stream, error) {
	s := &cudaStream{d: d}
	err := d.call(func() error { return d.lib.check(d.lib.cuStreamCreate(&s.h, streamNonBlocking), "cuStreamCreate") })
	if err != nil {
		return nil, err
	}
	return s, nil
}

// NewEvent creates a timing event (cuEventCreate).
func (d *cudaDevice) NewEvent() (Event, error) {
	e := &cudaEvent{d: d}
	err := d.call(func() error { return d.lib.check(d.lib.cuEventCreate(&e.h, eventDefault), "cuEventCreate") })
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (d *cudaDevice) streamOf(s Stream) (*cudaStream, error) {
	cs, ok := s.(*cudaStream)
	if !ok || cs.d != d {
		return nil, fmt.Errorf("%T is not a stream of this CUDA device", s)
	}
	return cs, nil
}

// Synchronize waits for the stream (cuStreamSynchronize).
func (s *cudaStream) Synchronize() error {
	return s.d.call(func() error {
		return s.d.lib.check(callRaw(s.d.lib.rawStreamSynchronize, s.h), "cuStreamSynchronize")
	})
}

// WaitEvent queues a wait for e (cuStreamWaitEvent).
func (s *cudaStream) WaitEvent(e Event) error {
	ce, ok := e.(*cudaEvent)
	if !ok || ce.d != s.d {
		return fmt.Errorf("wait event: %T is not an event of this CUDA device", e)
	}
	return s.d.call(func() error {
		return s.d.lib.check(callRaw(s.d.lib.rawStreamWaitEvent, s.h, ce.h, 0), "cuStreamWaitEvent")
	})
}

// Destroy destroys the stream (cuStreamDestroy_v2).
func (s *cudaStream) Destroy() error {
	return s.d.call(func() error { return s.d.lib.check(s.d.lib.cuStreamDestroy(s.h), "cuStreamDestroy_v2") })
}

// Record records the event on s (cuEventRecord).
func (e *cudaEvent) Record(s Stream) error {
	cs, err := e.d.streamOf(s)
	if err != nil {
		return fmt.Errorf("record event: %w", err)
	}
	return e.d.call(func() error {
		return e.d.lib.check(callRaw(e.d.lib.rawEventRecord, e.h, cs.h), "cuEventRecord")
	})
}

// Synchronize waits for the event (cuEventSynchronize).
func (e *cudaEvent) Synchronize() error {
	return e.d.call(func() error {
		return e.d.lib.check(callRaw(e.d.lib.rawEventSynchronize, e.h), "cuEventSynchronize")
	})
}

// Since returns the time from start to e (cuEventElapsedTime), at the
// driver's resolution of about half a microsecond.
func (e *cudaEvent) Since(start Event) (time.Duration, error) {
	cs, ok := start.(*cudaEvent)
	if !ok || cs.d != e.d {
		return 0, fmt.Errorf("elapsed time: %T is not an event of this CUDA device", start)
	}
	var ms float32
	err := e.d.call(func() error {
		return e.d.lib.check(e.d.lib.cuEventElapsedTime(&ms, cs.h, e.h), "cuEventElapsedTime")
	})
	return time.Duration(float64(ms) * float64(time.Millisecond)), err
}

// Destroy destroys the event (cuEventDestroy_v2).
func (e *cudaEvent) Destroy() error {
	return e.d.call(func() error { return e.d.lib.check(e.d.lib.cuEventDestroy(e.h), "cuEventDestroy_v2") })
}

// CopyHtoD queues cuMemcpyHtoDAsync_v2 from Go memory.
func (d *cudaDevice) CopyHtoD(s Stream, dst DevPtr, src []byte) error {
	cs, err := d.streamOf(s)
	if err != nil || len(src) == 0 {
		return err
	}
	return d.call(func() error {
		r := d.lib.cuMemcpyHtoDAsyncGo(uint64(dst), unsafe.Pointer(&src[0]), uintptr(len(src)), cs.h)
		return d.lib.check(r, fmt.Sprintf("cuMemcpyHtoDAsync_v2 %d bytes to %#x", len(src), uint64(dst)))
	})
}

// CopyDtoH queues cuMemcpyDtoHAsync_v2 into Go memory.
func (d *cudaDevice) CopyDtoH(s Stream, dst []byte, src DevPtr) error {
	cs, err := d.streamOf(s)
	if err != nil || len(dst) == 0 {
		return err
	}
	return d.call(func() error {
		r := d.lib.cuMemcpyDtoHAsyncGo(unsafe.Pointer(&dst[0]), uint64(src), uintptr(len(dst)), cs.h)
		return d.lib.check(r, fmt.Sprintf("cuMemcpyDtoHAsync_v2 %d bytes from %#x", len(dst), uint64(src)))
	})
}

// Memcpy queues one cuMemcpy{HtoD,DtoH,DtoD}Async_v2 per copy; host sides
// must be pinned memory of this device.
func (d *cudaDevice) Memcpy(s Stream, kind CopyKind, copies []Copy) error {
	cs, err := d.streamOf(s)
	if err != nil {
		return fmt.Errorf("memcpy: %w", err)
	}
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	d.mu.RLock()
	defer d.mu.RUnlock()
	for i, c := range copies {
		if err := d.memcpyOne(cs.h, kind, c); err != nil {
			return fmt.Errorf("memcpy %s, copy %d of %d: %w", kind, i, len(copies), err)
		}
	}
	return nil
}

// memcpyOne queues one copy; d.mu is held for reading and the context is
// bound.
func (d *cudaDevice) memcpyOne(stream uintptr, kind CopyKind, c Copy) error {
	n := uintptr(c.Bytes)
	switch kind {
	case HostToDevice:
		src, err := d.hostAddr(c.Src, c.Bytes)
		if err != nil {
			return err
		}
		return d.lib.check(callRaw(d.lib.rawMemcpyHtoDAsync, uintptr(c.Dst), src, n, stream), "cuMemcpyHtoDAsync_v2")
	case DeviceToHost:
		dst, err := d.hostAddr(c.Dst, c.Bytes)
		if err != nil {
			return err
		}
		return d.lib.check(callRaw(d.lib.rawMemcpyDtoHAsync, dst, uintptr(c.Src), n, stream), "cuMemcpyDtoHAsync_v2")
	case DeviceToDevice:
		return d.lib.check(callRaw(d.lib.rawMemcpyDtoDAsync, uintptr(c.Dst), uintptr(c.Src), n, stream), "cuMemcpyDtoDAsync_v2")
	}
	return fmt.Errorf("unknown copy kind %d", int(kind))
}

// MemcpyBatch queues the copies with one cuMemcpyBatchAsync, every copy
// ordered after earlier work on the stream.
func (d *cudaDevice) MemcpyBatch(s Stream, kind CopyKind, copies []Copy) error {
	if !d.lib.hasBatch() {
		return fmt.Errorf("memcpy batch: cuMemcpyBatchAsync: %w", ErrUnsupported)
	}
	cs, err := d.streamOf(s)
	if err != nil || len(copies) == 0 {
		return err
	}
	dsts, srcs, sizes, err := d.batchArrays(kind, copies)
	if err != nil {
		return fmt.Errorf("memcpy batch %s: %w", kind, err)
	}
	attrs := memcpyAttributes{srcAccessOrder: memcpySrcAccessOrderStream}
	idx := []uintptr{0}
	count := uintptr(len(copies))
	return d.call(func() error {
		if d.lib.cuMemcpyBatchAsyncV2 != nil {
			r := d.lib.cuMemcpyBatchAsyncV2(dsts, srcs, sizes, count, &attrs, idx, 1, cs.h)
			return d.lib.check(r, fmt.Sprintf("cuMemcpyBatchAsync_v2 %d copies", count))
		}
		var fail uintptr
		r := d.lib.cuMemcpyBatchAsyncV1(dsts, srcs, sizes, count, &attrs, idx, 1, &fail, cs.h)
		return d.lib.check(r, fmt.Sprintf("cuMemcpyBatchAsync %d copies (failed at %d)", count, fail))
	})
}

// batchArrays builds cuMemcpyBatchAsync's arrays, with host pointers for
// the host side.
func (d *cudaDevice) batchArrays(kind CopyKind, copies []Copy) (dsts, srcs []uint64, sizes []uintptr, err error) {
	dsts = make([]uint64, len(copies))
	srcs = make([]uint64, len(copies))
	sizes = make([]uintptr, len(copies))
	d.mu.RLock()
	defer d.mu.RUnlock()
	for i, c := range copies {
		dst, src := uintptr(c.Dst), uintptr(c.Src)
		switch kind {
		case HostToDevice:
			src, err = d.hostAddr(c.Src, c.Bytes)
		case DeviceToHost:
			dst, err = d.hostAddr(c.Dst, c.Bytes)
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("copy %d: %w", i, err)
		}
		dsts[i], srcs[i], sizes[i] = uint64(dst), uint64(src), uintptr(c.Bytes)
	}
	return dsts, srcs, sizes, nil
}

// Launch queues a kernel (cuLaunchKernel); each argument is a 64-bit
// value.
func (d *cudaDevice) Launch(s Stream, k Kernel, grid, block Dim3, args ...uint64) error {
	cs, err := d.streamOf(s)
	if err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	ck, ok := k.(*cudaKernel)
	if !ok {
		return fmt.Errorf("launch: %T is not a kernel of this CUDA device", k)
	}
	grid, block = grid.normalized(), block.normalized()
	vals := append(make([]uint64, 0, len(args)+1), args...)
	params := make([]unsafe.Pointer, len(args)+1)
	var pin runtime.Pinner
	defer pin.Unpin()
	for i := range args {
		pin.Pin(&vals[i])
		params[i] = unsafe.Pointer(&vals[i])
	}
	return d.call(func() error {
		r := d.lib.cuLaunchKernel(ck.fn, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, 0, cs.h, &params[0], nil)
		return d.lib.check(r, fmt.Sprintf("cuLaunchKernel %s grid %d block %d", ck.name, grid.X, block.X))
	})
}
