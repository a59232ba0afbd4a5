package connector

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/kvctl/kvctl/cuda"
)

// PageBuffer is runtime page memory (DeviceMoverOptions.PageMemory): pages
// of PageBytes bytes laid end to end from the start of Mem, such as one
// page slot's pages of every KV block.
type PageBuffer struct {
	Mem       []byte
	PageBytes int64
}

// pageRegBytes is about how much page memory one registration pins: a
// buffer is registered in parts of whole pages, each the first time a
// page in it moves, so that a runtime whose page memory is large (serve
// --gpu-bytes 80GiB emulates it in host memory, which the kernel maps only
// as it is written) pins only the parts it uses. A variable for tests.
var pageRegBytes int64 = 64 << 20

// hostPages is the runtime's page memory, registered with the device part
// by part as its pages move (DeviceMoverOptions.PageMemory), so that a
// page moves between its window page and its place by the device's copy
// alone. Through the window's host image instead, a load's pages were
// copied once more on the host: on an H200, serve's load calls of 40 pages
// of 64 KiB spent 390 µs in that copy against the bench's 17 µs for a call
// of the same pages (docs/benchmarks.md, "serve's pages moved in place").
type hostPages struct {
	dev  cuda.Device
	bufs []pageRegs
}

// pageRegs is one buffer and its parts' registrations (nil until used).
type pageRegs struct {
	PageBuffer
	partBytes int64
	parts     []*cuda.HostMem
}

// newHostPages prepares the registration of bufs with dev; it registers
// nothing yet.
func newHostPages(dev cuda.Device, bufs []PageBuffer) (*hostPages, error) {
	h := &hostPages{dev: dev}
	for i, b := range bufs {
		if b.PageBytes <= 0 || int64(len(b.Mem))%b.PageBytes != 0 {
			return nil, fmt.Errorf("page memory %d: %d bytes are not whole pages of %d bytes", i, len(b.Mem), b.PageBytes)
		}
		part := max(1, pageRegBytes/b.PageBytes) * b.PageBytes
		n := (int64(len(b.Mem)) + part - 1) / part
		h.bufs = append(h.bufs, pageRegs{PageBuffer: b, partBytes: part, parts: make([]*cuda.HostMem, n)})
	}
	return h, nil
}

func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// ptr is the device address of page and the registration holding it,
// registering the part of the page memory that holds it if it is not yet;
// an error when page is not one of the page memory's pages or the
// registration fails.
func (h *hostPages) ptr(page []byte) (cuda.DevPtr, *cuda.HostMem, error) {
	addr := addrOf(page)
	for i := range h.bufs {
		b := &h.bufs[i]
		start := addrOf(b.Mem)
		if addr < start || addr+uintptr(len(page)) > start+uintptr(len(b.Mem)) {
			continue
		}
		off := int64(addr - start)
		p := off / b.partBytes
		if off%b.PageBytes != 0 || int64(len(page)) != b.PageBytes {
			return 0, nil, fmt.Errorf("%d bytes at offset %d are not one of the page memory's pages of %d bytes", len(page), off, b.PageBytes)
		}
		if b.parts[p] == nil {
			mem := b.Mem[p*b.partBytes : min((p+1)*b.partBytes, int64(len(b.Mem)))]
			r, err := h.dev.RegisterHost(mem)
			if err != nil {
				return 0, nil, fmt.Errorf("registering %d bytes of page memory: %w", len(mem), err)
			}
			b.parts[p] = r
		}
		return b.parts[p].Ptr().Add(off - p*b.partBytes), b.parts[p], nil
	}
	return 0, nil, errors.New("the page lies outside the page memory")
}

// close unregisters what was registered.
func (h *hostPages) close() error {
	if h == nil {
		return nil
	}
	var errs []error
	for _, b := range h.bufs {
		for _, r := range b.parts {
			if r != nil {
				errs = append(errs, r.Close())
			}
		}
	}
	h.bufs = nil
	return errors.Join(errs...)
}

// appendJoined appends c to copies, extending the last copy instead when
// c continues it on both sides and lies in the same registration as the
// last (same): adjacent pages of the runtime landing in adjacent window
// pages move in one copy. A GPU maps registered host memory at its own
// address, so two parts registered apart may be adjacent there too, and a
// copy across both would read memory no one registration pins.
func appendJoined(copies []cuda.Copy, c cuda.Copy, same bool) []cuda.Copy {
	if n := len(copies); n > 0 && same {
		last := &copies[n-1]
		if last.Src.Add(last.Bytes) == c.Src && last.Dst.Add(last.Bytes) == c.Dst {
			last.Bytes += c.Bytes
			return copies
		}
	}
	return append(copies, c)
}

// placeCopies lists the copies between the batch's window pages (placed
// by place) and pages in the page memory: kind HostToDevice moves pages
// into the window (saves), DeviceToHost the window into pages (loads),
// for the pages moved says.
func (m *DeviceMover) placeCopies(keys []string, pages [][]byte, kind cuda.CopyKind, moved func(i int) bool) ([]cuda.Copy, error) {
	m.copies = m.copies[:0]
	var last *cuda.HostMem // the registration of the last copy's pages
	for i, p := range pages {
		if !moved(i) {
			continue
		}
		host, reg, err := m.host.ptr(p)
		if err != nil {
			return nil, fmt.Errorf("device mover: page %q: %w", keys[i], err)
		}
		win := m.pools[m.refs[i].LayerGroup].Region(m.slots[i], 0)
		c := cuda.Copy{Dst: win, Src: host, Bytes: int64(len(p))}
		if kind == cuda.DeviceToHost {
			c.Dst, c.Src = host, win
		}
		m.copies = appendJoined(m.copies, c, reg == last)
		last = reg
	}
	return m.copies, nil
}
