package cuda

import (
	"errors"
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
	// ModeBatch queues the copies with cuMemcpyBatchAsync, at most
	// maxBatchCopies a call (CUDA 12.8 and later).
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

// Copier moves batches of regions on one stream in one CopyMode. It is not
// safe for concurrent use; give each stream its own.
type Copier struct {
	dev     Device
	mode    CopyMode
	scatter Kernel
	gather  Kernel
	// descs is kernel mode's ring of descriptor buffers.
	descs *descRing
	// bounces hold kernel mode's runs of adjacent host regions on the
	// device (bounce); runs and dma are scratch for the runs and their
	// contiguous copies.
	bounces  *bounceRing
	noBounce bool
	overlap  bool
	dma      []Copy
	runs     []bounceRun
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
		if c.descs, err = newDescRing(dev, descRingSlots); err != nil {
			return nil, fmt.Errorf("copy mode kernel: %w", err)
		}
		if c.bounces, err = newBounceRing(dev); err != nil {
			return nil, errors.Join(fmt.Errorf("copy mode kernel: %w", err), c.descs.close())
		}
	default:
		return nil, fmt.Errorf("copy mode %q: want memcpy, kernel or batch", mode)
	}
	return c, nil
}

// SetBounce turns kernel mode's bounce buffer on (the default) or off:
// off, the kernel reads and writes every host region from the SMs, long
// runs of adjacent regions included.
func (c *Copier) SetBounce(on bool) { c.noBounce = !on }

// SetOverlap lets kernel mode move the runs of its bounce buffers on a
// stream of its own (off by default), so that the copy engine moves one
// call's runs while the kernel of another runs on the caller's stream:
// a load's runs are copied in ahead of the work queued on the stream
// before them, and a save's are copied out after its kernel while the
// stream goes on. It is for callers whose loads read host memory that is
// final when the load is queued (no earlier work on the stream writes
// it), who read what a save wrote only once an event recorded with
// Record completed (or after Synchronize), and who synchronize with
// Synchronize.
func (c *Copier) SetOverlap(on bool) { c.overlap = on }

// Record records e after the work of the last call queued on s: on s,
// or, when that call was a save whose runs are copied out beside s
// (SetOverlap), after that copy, which follows the call's kernel.
func (c *Copier) Record(e Event, s Stream) error {
	if c.bounces != nil && c.bounces.tail != nil {
		return e.Record(c.bounces.tail)
	}
	return e.Record(s)
}

// Synchronize waits for the work queued on s and for the copies of runs
// beside it, and returns the first error either met.
func (c *Copier) Synchronize(s Stream) error {
	err := s.Synchronize()
	if c.bounces != nil && c.bounces.ahead != nil {
		err = errors.Join(err, c.bounces.ahead.Synchronize())
	}
	return err
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
		return c.batch(s, kind, copies)
	}
	return c.launch(s, kind, copies)
}

// maxBatchCopies is the most copies of one cuMemcpyBatchAsync call, the
// probe's batch. On the H200 the driver took about 1.7 µs a copy in calls
// of 8,192 copies of 2 KiB (a 16 MiB set of 4 KiB pages of two regions)
// and 0.8 µs in calls of 2,048 copies of 8 KiB, while the probe's calls of
// 64 copies of 4 KiB took about 0.5 µs a copy, transfer included
// (docs/benchmarks.md).
const maxBatchCopies = 64

// batch queues the copies in calls of at most maxBatchCopies.
func (c *Copier) batch(s Stream, kind CopyKind, copies []Copy) error {
	for lo := 0; lo < len(copies); lo += maxBatchCopies {
		if err := c.dev.MemcpyBatch(s, kind, copies[lo:min(lo+maxBatchCopies, len(copies))]); err != nil {
			return err
		}
	}
	return nil
}

// Close frees the Copier's descriptor buffers; the stream it last used
// must have been synchronized.
func (c *Copier) Close() error {
	if c.descs == nil {
		return nil
	}
	err := errors.Join(c.descs.close(), c.bounces.close())
	c.descs = nil
	return err
}
