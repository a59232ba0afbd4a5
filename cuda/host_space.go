package cuda

import (
	"fmt"
	"sort"
	"sync"
)

// hostSpace is host emulation's device address space: every allocation,
// pinned buffer and registered slice gets a range of addresses that map to
// its Go bytes. Ranges are separated by unmapped gaps so that an
// out-of-range access is an error, as it would be a fault on a GPU.
type hostSpace struct {
	mu     sync.RWMutex
	next   uint64
	ranges []hostRange // sorted by base
}

type hostRange struct {
	base uint64
	buf  []byte
	host bool // pinned host memory rather than device memory
}

const (
	hostSpaceStart = 0x7f00_0000_0000
	hostSpaceAlign = 1 << 16
)

func newHostSpace() *hostSpace { return &hostSpace{next: hostSpaceStart} }

// add maps buf (which may be empty) and returns its address; host marks
// pinned host memory.
func (s *hostSpace) add(buf []byte, host bool) DevPtr {
	return s.addAt(buf, host, false)
}

// addRegistered maps registered host memory buf right after the
// previous range (its size rounded up to hostSpaceAlign), without the
// gap: the driver may map consecutive registrations back to back, so a
// run of adjacent addresses can span two of them while each copy must
// lie inside one (slice).
func (s *hostSpace) addRegistered(buf []byte) DevPtr {
	return s.addAt(buf, true, true)
}

func (s *hostSpace) addAt(buf []byte, host, noGap bool) DevPtr {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := s.next
	if noGap && base > hostSpaceStart {
		base -= hostSpaceAlign
	}
	s.next = base
	span := (uint64(len(buf)) + hostSpaceAlign - 1) / hostSpaceAlign * hostSpaceAlign
	s.next += span + hostSpaceAlign
	s.ranges = append(s.ranges, hostRange{base: base, buf: buf, host: host})
	return DevPtr(base)
}

// remove unmaps the range that starts at p, which must be host memory
// when host is set and device memory otherwise.
func (s *hostSpace) remove(p DevPtr, host bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].base >= uint64(p) })
	if i == len(s.ranges) || s.ranges[i].base != uint64(p) {
		return fmt.Errorf("address %#x is not the start of an allocation", uint64(p))
	}
	if s.ranges[i].host != host {
		return fmt.Errorf("address %#x is %s, not %s", uint64(p), memoryName(s.ranges[i].host), memoryName(host))
	}
	s.ranges = append(s.ranges[:i], s.ranges[i+1:]...)
	return nil
}

// slice returns the n bytes at p, which must lie inside one mapped range,
// and whether they are host memory.
func (s *hostSpace) slice(p DevPtr, n int64) ([]byte, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].base > uint64(p) }) - 1
	if i < 0 || n < 0 {
		return nil, false, fmt.Errorf("illegal address %#x (%d bytes)", uint64(p), n)
	}
	r := s.ranges[i]
	off := uint64(p) - r.base
	if off+uint64(n) > uint64(len(r.buf)) {
		return nil, false, fmt.Errorf("illegal address %#x (%d bytes): outside the %d-byte allocation at %#x", uint64(p), n, len(r.buf), r.base)
	}
	return r.buf[off : off+uint64(n) : off+uint64(n)], r.host, nil
}

// pinnedEnd is the end of the range of pinned host memory holding p.
func (s *hostSpace) pinnedEnd(p DevPtr) (DevPtr, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].base > uint64(p) }) - 1
	if i < 0 || !s.ranges[i].host || uint64(p) >= s.ranges[i].base+uint64(len(s.ranges[i].buf)) {
		return 0, false
	}
	return DevPtr(s.ranges[i].base + uint64(len(s.ranges[i].buf))), true
}

// copy copies n bytes from src to dst inside the space. A kind other than
// anyCopy is checked against the memory the addresses name, as the driver
// would; kernels pass anyCopy to allow any pair.
func (s *hostSpace) copy(kind CopyKind, dst, src DevPtr, n int64) error {
	d, dstHost, err := s.slice(dst, n)
	if err != nil {
		return fmt.Errorf("copy destination: %w", err)
	}
	b, srcHost, err := s.slice(src, n)
	if err != nil {
		return fmt.Errorf("copy source: %w", err)
	}
	switch {
	case kind == HostToDevice && (!srcHost || dstHost),
		kind == DeviceToHost && (srcHost || !dstHost),
		kind == DeviceToDevice && (srcHost || dstHost):
		return fmt.Errorf("%s copy from %s at %#x to %s at %#x", kind, memoryName(srcHost), uint64(src), memoryName(dstHost), uint64(dst))
	}
	copy(d, b)
	return nil
}

// anyCopy is the copy kind of kernels, which may read and write any
// device-visible memory.
const anyCopy CopyKind = -1

func memoryName(host bool) string {
	if host {
		return "host memory"
	}
	return "device memory"
}

// mapped reports how many ranges are mapped (for tests and leak checks).
func (s *hostSpace) mapped() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.ranges)
}
