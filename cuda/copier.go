package cuda

import (
	"fmt"
	"strings"
)

// CopyMode is how a Copier moves a batch of regions.
type CopyMode string

// The copy modes.
const (
	// ModeMemcpy queues one cuMemcpy*Async per region, as the connector does.
	ModeMemcpy CopyMode = "memcpy"
	// ModeKernel launches the scatter or gather kernel over a descriptor
	// array.
	ModeKernel CopyMode = "kernel"
	// ModeBatch queues one cuMemcpyBatchAsync for the whole batch (CUDA
	// 12.8 and later).
	ModeBatch CopyMode = "batch"
)

// CopyModes lists the modes in the order to compare them.
var CopyModes = []CopyMode{ModeMemcpy, ModeKernel, ModeBatch}

// ParseCopyMode parses "memcpy", "kernel" or "batch".
func ParseCopyMode(s string) (CopyMode, error) {
	m := CopyMode(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range CopyModes {
		if m == known {
			return m, nil
		}
	}
	return "", fmt.Errorf("copy mode %q: want memcpy, kernel or batch", s)
}

const (
	// kernelChunk is the most one descriptor moves in kernel mode: larger
	// regions are split so that several blocks share them.
	kernelChunk = 64 << 10
	// kernelBlock is the kernels' block size, in threads.
	kernelBlock = 256
	// kernelMaxGrid bounds the grid; blocks stride over the rest.
	kernelMaxGrid = 65535
	// minDescs is the descriptor capacity a Copier starts with.
	minDescs = 256
)

// Copier moves batches of regions on one stream in one CopyMode. It is not
// safe for concurrent use; give each stream its own.
type Copier struct {
	dev     Device
	mode    CopyMode
	scatter Kernel
	gather  Kernel

	// Kernel mode: descriptors are written to hostDescs, copied to
	// devDescs, and read there by the kernel; descDone marks the end of
	// the last descriptor upload, which must finish before hostDescs is
	// rewritten.
	hostDescs *HostMem
	devDescs  DevPtr
	capacity  int
	descDone  Event
	chunks    []Copy
}

// NewCopier prepares a Copier; for ModeBatch it returns an error wrapping
// ErrUnsupported when the driver lacks cuMemcpyBatchAsync, and for
// ModeKernel it loads the embedded kernels.
func NewCopier(dev Device, mode CopyMode) (*Copier, error) {
	c := &Copier{dev: dev, mode: mode}
	switch mode {
	case ModeMemcpy:
	case ModeBatch:
		if !dev.Info().BatchCopy {
			return nil, fmt.Errorf("copy mode batch: cuMemcpyBatchAsync: %w", ErrUnsupported)
		}
	case ModeKernel:
		var err error
		if c.scatter, err = dev.Kernel(KernelScatter); err != nil {
			return nil, fmt.Errorf("copy mode kernel: %w", err)
		}
		if c.gather, err = dev.Kernel(KernelGather); err != nil {
			return nil, fmt.Errorf("copy mode kernel: %w", err)
		}
		if c.descDone, err = dev.NewEvent(); err != nil {
			return nil, fmt.Errorf("copy mode kernel: %w", err)
		}
	default:
		return nil, fmt.Errorf("copy mode %q: want memcpy, kernel or batch", mode)
	}
	return c, nil
}

// Mode returns the Copier's mode.
func (c *Copier) Mode() CopyMode { return c.mode }

// Copy queues copies on s. Host addresses are device pointers of pinned
// host memory.
func (c *Copier) Copy(s Stream, kind CopyKind, copies []Copy) error {
	if len(copies) == 0 {
		return nil
	}
	switch c.mode {
	case ModeMemcpy:
		return c.dev.Memcpy(s, kind, copies)
	case ModeBatch:
		return c.dev.MemcpyBatch(s, kind, copies)
	}
	return c.launch(s, kind, copies)
}

func (c *Copier) launch(s Stream, kind CopyKind, copies []Copy) error {
	c.chunks = splitCopies(c.chunks[:0], copies, kernelChunk)
	n := len(c.chunks)
	if err := c.descDone.Synchronize(); err != nil {
		return fmt.Errorf("kernel copy: waiting for the last descriptor upload: %w", err)
	}
	if err := c.reserve(n); err != nil {
		return err
	}
	EncodeDescs(c.hostDescs.Bytes(), c.chunks)
	upload := []Copy{{Dst: c.devDescs, Src: c.hostDescs.Ptr(), Bytes: int64(n * DescBytes)}}
	if err := c.dev.Memcpy(s, HostToDevice, upload); err != nil {
		return fmt.Errorf("kernel copy: uploading %d descriptors: %w", n, err)
	}
	if err := c.descDone.Record(s); err != nil {
		return fmt.Errorf("kernel copy: %w", err)
	}
	k := c.scatter
	if kind == DeviceToHost {
		k = c.gather
	}
	grid := Dim(uint32(min(n, kernelMaxGrid)))
	return c.dev.Launch(s, k, grid, Dim(kernelBlock), uint64(c.devDescs), uint64(n))
}

// reserve makes room for n descriptors, growing by doubling.
func (c *Copier) reserve(n int) error {
	if n <= c.capacity {
		return nil
	}
	capacity := max(minDescs, c.capacity)
	for capacity < n {
		capacity *= 2
	}
	if err := c.freeDescs(); err != nil {
		return err
	}
	h, err := c.dev.AllocHost(int64(capacity * DescBytes))
	if err != nil {
		return fmt.Errorf("kernel copy: descriptor staging: %w", err)
	}
	d, err := c.dev.Alloc(int64(capacity * DescBytes))
	if err != nil {
		h.Close()
		return fmt.Errorf("kernel copy: descriptor array: %w", err)
	}
	c.hostDescs, c.devDescs, c.capacity = h, d, capacity
	return nil
}

func (c *Copier) freeDescs() error {
	if c.capacity == 0 {
		return nil
	}
	errH := c.hostDescs.Close()
	errD := c.dev.Free(c.devDescs)
	c.hostDescs, c.devDescs, c.capacity = nil, 0, 0
	if errH != nil {
		return errH
	}
	return errD
}

// Close frees the Copier's descriptor buffers; the stream it last used
// must have been synchronized.
func (c *Copier) Close() error {
	err := c.freeDescs()
	if c.descDone != nil {
		if derr := c.descDone.Destroy(); err == nil {
			err = derr
		}
		c.descDone = nil
	}
	return err
}

// splitCopies appends copies to dst, cutting every region larger than
// chunk bytes into chunk-sized pieces (chunk is a multiple of 16, so
// aligned regions stay aligned).
func splitCopies(dst, copies []Copy, chunk int64) []Copy {
	for _, c := range copies {
		for off := int64(0); off < c.Bytes; off += chunk {
			n := min(chunk, c.Bytes-off)
			dst = append(dst, Copy{Dst: c.Dst.Add(off), Src: c.Src.Add(off), Bytes: n})
		}
	}
	return dst
}
