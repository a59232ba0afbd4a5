package transfer

import (
	"fmt"

	"github.com/kvctl/kvctl/cuda"
)

// staging is pinned host memory cut into buffers of equal slots, one page
// per slot: slot i of buffer b is slot b*slots+i of the allocation.
type staging struct {
	mem       *cuda.HostMem
	buffers   int
	slots     int
	slotBytes int64
}

// newStaging allocates g.Buffers buffers of g.Slots slots and touches
// every page of them, so that no first-touch fault lands in a timed
// transfer (pinned memory is resident already; emulated memory is not).
func newStaging(dev cuda.Device, g Geometry) (*staging, error) {
	buffers := max(1, g.Buffers)
	mem, err := dev.AllocHost(g.AllocBytes() * int64(buffers))
	if err != nil {
		return nil, fmt.Errorf("staging of %d buffers of %d slots of %d bytes: %w", buffers, g.Slots, g.SlotBytes, err)
	}
	clear(mem.Bytes())
	return &staging{mem: mem, buffers: buffers, slots: g.Slots, slotBytes: g.SlotBytes}, nil
}

// slot returns the first n bytes of slot i of buffer b.
func (s *staging) slot(b, i int, n int64) []byte {
	off := int64(b*s.slots+i) * s.slotBytes
	return s.mem.Bytes()[off : off+n : off+n]
}

// ptr returns the device address of slot i of buffer b.
func (s *staging) ptr(b, i int) cuda.DevPtr {
	return s.mem.Ptr().Add(int64(b*s.slots+i) * s.slotBytes)
}

func (s *staging) close() error {
	if s == nil {
		return nil
	}
	return s.mem.Close()
}

// stagingBuffers is how many buffers of g's slots a lane uses: the number
// asked for, reduced to what budget holds, at least 1.
func stagingBuffers(want int, g Geometry, budget int64) int {
	fit := budget / max(g.AllocBytes(), 1)
	return int(max(1, min(int64(want), fit)))
}
