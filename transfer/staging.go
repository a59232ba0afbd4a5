package transfer

import (
	"fmt"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// staging is pinned host memory cut into buffers of equal size, one per
// set in flight; a set's pages lie in its buffer one after the other, so
// that the buffer's used part is one contiguous run (one copy-engine copy
// in kernel mode).
type staging struct {
	mem         *cuda.HostMem
	buffers     int
	bufferBytes int64
}

// newStaging allocates g.Buffers buffers of g.AllocBytes bytes and
// touches every page of them, so that no first-touch fault lands in a
// timed transfer (pinned memory is resident already; emulated memory is
// not).
func newStaging(dev cuda.Device, g Geometry) (*staging, error) {
	buffers := max(1, g.Buffers)
	mem, err := dev.AllocHost(g.AllocBytes() * int64(buffers))
	if err != nil {
		return nil, fmt.Errorf("staging of %d buffers of %d pages of %d bytes: %w", buffers, max(g.SetPages, g.Slots), g.SlotBytes, err)
	}
	clear(mem.Bytes())
	return &staging{mem: mem, buffers: buffers, bufferBytes: g.AllocBytes()}, nil
}

// registerStaging registers the staging with store when it can take it
// (pool.BufferRegistrar), so that the store's Get and Put move values
// straight between it and the pool, without a staging copy of the store's
// own; it returns the function that undoes it, or nil.
func registerStaging(store pool.Store, s *staging) (func() error, error) {
	r, ok := store.(pool.BufferRegistrar)
	if !ok {
		return nil, nil
	}
	unregister, err := r.RegisterBuffer(s.mem.Bytes())
	if err != nil {
		return nil, fmt.Errorf("registering %d bytes of staging with the pool: %w", len(s.mem.Bytes()), err)
	}
	return unregister, nil
}

// bytes returns the n bytes at offset off of buffer b.
func (s *staging) bytes(b int, off, n int64) []byte {
	at := int64(b)*s.bufferBytes + off
	return s.mem.Bytes()[at : at+n : at+n]
}

// ptr returns the device address of offset off of buffer b.
func (s *staging) ptr(b int, off int64) cuda.DevPtr {
	return s.mem.Ptr().Add(int64(b)*s.bufferBytes + off)
}

func (s *staging) close() error {
	if s == nil {
		return nil
	}
	return s.mem.Close()
}

// stagingBuffers is how many buffers of g's sets a lane uses: the number
// asked for, reduced to what budget holds, at least 1.
func stagingBuffers(want int, g Geometry, budget int64) int {
	fit := budget / max(g.AllocBytes(), 1)
	return int(max(1, min(int64(want), fit)))
}
