package transfer

import (
	"fmt"

	"github.com/kvctl/kvctl/cuda"
)

// staging is pinned host memory cut into equal slots, one page each.
type staging struct {
	mem       *cuda.HostMem
	slots     int
	slotBytes int64
}

func newStaging(dev cuda.Device, g Geometry) (*staging, error) {
	mem, err := dev.AllocHost(g.AllocBytes())
	if err != nil {
		return nil, fmt.Errorf("staging of %d slots of %d bytes: %w", g.Slots, g.SlotBytes, err)
	}
	return &staging{mem: mem, slots: g.Slots, slotBytes: g.SlotBytes}, nil
}

// slot returns the first n bytes of slot i.
func (s *staging) slot(i int, n int64) []byte {
	off := int64(i) * s.slotBytes
	return s.mem.Bytes()[off : off+n : off+n]
}

// ptr returns slot i's device address.
func (s *staging) ptr(i int) cuda.DevPtr { return s.mem.Ptr().Add(int64(i) * s.slotBytes) }

func (s *staging) close() error {
	if s == nil {
		return nil
	}
	return s.mem.Close()
}
