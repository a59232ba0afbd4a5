package cuda

import (
	"errors"
	"fmt"
	"runtime"
)

// hostDevice emulates a GPU in plain Go memory.
type hostDevice struct {
	space    *hostSpace
	fallback string
}

var _ Device = (*hostDevice)(nil)

func newHostDevice(fallback string) *hostDevice {
	return &hostDevice{space: newHostSpace(), fallback: fallback}
}

// Info describes host emulation.
func (d *hostDevice) Info() Info {
	return Info{
		Name:            "host emulation",
		Emulated:        true,
		Multiprocessors: runtime.NumCPU(),
		BatchCopy:       true,
		Fallback:        d.fallback,
	}
}

// Alloc allocates emulated device memory.
func (d *hostDevice) Alloc(bytes int64) (DevPtr, error) {
	if bytes <= 0 {
		return 0, fmt.Errorf("alloc %d bytes: size must be positive", bytes)
	}
	return d.space.add(make([]byte, bytes), false), nil
}

// Free frees emulated device memory.
func (d *hostDevice) Free(p DevPtr) error {
	if err := d.space.remove(p, false); err != nil {
		return fmt.Errorf("free: %w", err)
	}
	return nil
}

// AllocHost allocates host memory mapped into the emulated space.
func (d *hostDevice) AllocHost(bytes int64) (*HostMem, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("alloc host %d bytes: size must be positive", bytes)
	}
	return d.mapHost(make([]byte, bytes)), nil
}

// RegisterHost maps b into the emulated space without copying it.
func (d *hostDevice) RegisterHost(b []byte) (*HostMem, error) {
	if len(b) == 0 {
		return nil, errors.New("register host memory: empty slice")
	}
	p := d.space.addRegistered(b)
	return &HostMem{b: b, ptr: p, release: func() error { return d.space.remove(p, true) }}, nil
}

// pinnedEnd is the end of the pinned range holding p (pinnedRanges).
func (d *hostDevice) pinnedEnd(p DevPtr) (DevPtr, bool) { return d.space.pinnedEnd(p) }

func (d *hostDevice) mapHost(b []byte) *HostMem {
	p := d.space.add(b, true)
	return &HostMem{b: b, ptr: p, release: func() error { return d.space.remove(p, true) }}
}

// NewStream starts a stream goroutine.
func (d *hostDevice) NewStream() (Stream, error) { return newHostStream(), nil }

// NewEvent creates an event.
func (d *hostDevice) NewEvent() (Event, error) { return newHostEvent(), nil }

func hostStreamOf(s Stream) (*hostStream, error) {
	hs, ok := s.(*hostStream)
	if !ok {
		return nil, fmt.Errorf("%T is not a host emulation stream", s)
	}
	return hs, nil
}

// CopyHtoD queues a copy from Go memory into emulated device memory.
func (d *hostDevice) CopyHtoD(s Stream, dst DevPtr, src []byte) error {
	hs, err := hostStreamOf(s)
	if err != nil {
		return fmt.Errorf("copy h2d: %w", err)
	}
	return hs.enqueue(func() error {
		b, host, err := d.space.slice(dst, int64(len(src)))
		if err == nil && host {
			err = fmt.Errorf("destination %#x is host memory", uint64(dst))
		}
		if err != nil {
			return fmt.Errorf("copy h2d: %w", err)
		}
		copy(b, src)
		return nil
	})
}

// CopyDtoH queues a copy from emulated device memory into Go memory.
func (d *hostDevice) CopyDtoH(s Stream, dst []byte, src DevPtr) error {
	hs, err := hostStreamOf(s)
	if err != nil {
		return fmt.Errorf("copy d2h: %w", err)
	}
	return hs.enqueue(func() error {
		b, host, err := d.space.slice(src, int64(len(dst)))
		if err == nil && host {
			err = fmt.Errorf("source %#x is host memory", uint64(src))
		}
		if err != nil {
			return fmt.Errorf("copy d2h: %w", err)
		}
		copy(dst, b)
		return nil
	})
}

// Memcpy queues the copies as one operation of the stream.
func (d *hostDevice) Memcpy(s Stream, kind CopyKind, copies []Copy) error {
	return d.queueCopies(s, "memcpy", kind, copies)
}

// MemcpyBatch queues the copies as one operation of the stream; emulation
// always has it.
func (d *hostDevice) MemcpyBatch(s Stream, kind CopyKind, copies []Copy) error {
	return d.queueCopies(s, "memcpy batch", kind, copies)
}

func (d *hostDevice) queueCopies(s Stream, what string, kind CopyKind, copies []Copy) error {
	hs, err := hostStreamOf(s)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	cs := append([]Copy(nil), copies...)
	return hs.enqueue(func() error {
		for i, c := range cs {
			if err := d.space.copy(kind, c.Dst, c.Src, c.Bytes); err != nil {
				return fmt.Errorf("%s %s, copy %d: %w", what, kind, i, err)
			}
		}
		return nil
	})
}

// Kernel finds a Go kernel by name.
func (d *hostDevice) Kernel(name string) (Kernel, error) {
	k, ok := hostKernels[name]
	if !ok {
		return nil, fmt.Errorf("kernel %q: not in the module", name)
	}
	return k, nil
}

// Launch queues a Go kernel.
func (d *hostDevice) Launch(s Stream, k Kernel, grid, block Dim3, args ...uint64) error {
	hs, err := hostStreamOf(s)
	if err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	hk, ok := k.(*hostKernel)
	if !ok {
		return fmt.Errorf("launch: %T is not a host emulation kernel", k)
	}
	if grid.X == 0 || block.X == 0 {
		return fmt.Errorf("launch %s: empty grid %v or block %v", hk.name, grid, block)
	}
	if len(args) != hk.args {
		return fmt.Errorf("launch %s: %d arguments, want %d", hk.name, len(args), hk.args)
	}
	a := append([]uint64(nil), args...)
	return hs.enqueue(func() error { return hk.run(d.space, a) })
}

// Close releases nothing: emulated memory is garbage collected.
func (d *hostDevice) Close() error { return nil }
