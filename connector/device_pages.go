package connector

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/kvctl/kvctl/cuda"
)

// hostPages is the runtime's page memory registered with the device
// (DeviceMoverOptions.PageMemory), so that a page moves between its
// window page and its place by the device's copy alone. Through the
// window's host image instead, a load's pages were copied once more on
// the host: on an H200, serve's load calls of 40 pages of 64 KiB spent
// 390 µs in that copy against the bench's 17 µs for a call of the same
// pages (docs/benchmarks.md, "serve's transfers, call by call").
type hostPages struct {
	regs []*cuda.HostMem
}

// registerPages pins mem's buffers and maps them into dev's space.
func registerPages(dev cuda.Device, mem [][]byte) (*hostPages, error) {
	h := &hostPages{}
	for i, b := range mem {
		if len(b) == 0 {
			continue
		}
		r, err := dev.RegisterHost(b)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("registering page memory %d (%d bytes): %w", i, len(b), err), h.close())
		}
		h.regs = append(h.regs, r)
	}
	return h, nil
}

// ptr is the device address of page, which must lie inside one buffer.
func (h *hostPages) ptr(page []byte) (cuda.DevPtr, bool) {
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(page)))
	for _, r := range h.regs {
		b := r.Bytes()
		start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if addr >= start && addr+uintptr(len(page)) <= start+uintptr(len(b)) {
			return r.Ptr().Add(int64(addr - start)), true
		}
	}
	return 0, false
}

// close unregisters the buffers.
func (h *hostPages) close() error {
	if h == nil {
		return nil
	}
	var errs []error
	for _, r := range h.regs {
		errs = append(errs, r.Close())
	}
	h.regs = nil
	return errors.Join(errs...)
}

// appendJoined appends c to copies, extending the last copy instead when
// c continues it on both sides (adjacent pages of the runtime landing in
// adjacent window pages move in one copy).
func appendJoined(copies []cuda.Copy, c cuda.Copy) []cuda.Copy {
	if n := len(copies); n > 0 {
		last := &copies[n-1]
		if last.Src.Add(last.Bytes) == c.Src && last.Dst.Add(last.Bytes) == c.Dst {
			last.Bytes += c.Bytes
			return copies
		}
	}
	return append(copies, c)
}

// placeCopies lists the copies between the batch's window pages (placed
// by place) and pages in the registered page memory: kind HostToDevice
// moves pages into the window (saves), DeviceToHost the window into pages
// (loads), for the pages moved says.
func (m *DeviceMover) placeCopies(keys []string, pages [][]byte, kind cuda.CopyKind, moved func(i int) bool) ([]cuda.Copy, error) {
	m.copies = m.copies[:0]
	for i, p := range pages {
		if !moved(i) {
			continue
		}
		host, ok := m.host.ptr(p)
		if !ok {
			return nil, fmt.Errorf("device mover: page %q lies outside the page memory", keys[i])
		}
		win := m.pools[m.refs[i].LayerGroup].Region(m.slots[i], 0)
		c := cuda.Copy{Dst: win, Src: host, Bytes: int64(len(p))}
		if kind == cuda.DeviceToHost {
			c.Dst, c.Src = host, win
		}
		m.copies = appendJoined(m.copies, c)
	}
	return m.copies, nil
}
