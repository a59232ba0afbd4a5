package connector

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// pageCopyCounter is a device that counts the copies into and out of the
// host memory registered with it (the page memory, in staged mode), and
// (windowCounter) the bytes through the window's image.
type pageCopyCounter struct {
	windowCounter
	regs               []*cuda.HostMem
	pagesUp, pagesDown int   // copies touching registered memory, by direction
	pagesUpBytes       int64 // bytes of those uploads
}

func (c *pageCopyCounter) RegisterHost(b []byte) (*cuda.HostMem, error) {
	r, err := c.windowCounter.RegisterHost(b)
	if err == nil {
		c.regs = append(c.regs, r)
	}
	return r, err
}

func (c *pageCopyCounter) registered(p cuda.DevPtr) bool {
	for _, r := range c.regs {
		if p >= r.Ptr() && p < r.Ptr().Add(int64(len(r.Bytes()))) {
			return true
		}
	}
	return false
}

func (c *pageCopyCounter) Memcpy(s cuda.Stream, kind cuda.CopyKind, copies []cuda.Copy) error {
	for _, cp := range copies {
		switch {
		case kind == cuda.HostToDevice && c.registered(cp.Src):
			c.pagesUp++
			c.pagesUpBytes += cp.Bytes
		case kind == cuda.DeviceToHost && c.registered(cp.Dst):
			c.pagesDown++
		}
	}
	return c.windowCounter.Memcpy(s, kind, copies)
}

// imageBytes is what went through the window's image.
func (c *pageCopyCounter) imageBytes() int64 { return c.up + c.down }

// With the runtime's page memory given, pages move between it and the
// window by the device's copies alone, adjacent pages in one copy; the
// page memory is registered part by part as its pages first move; a page
// outside it, or not one of its pages, is refused, and a missing page is
// left as it was.
func TestDeviceMoverMovesPagesInPlace(t *testing.T) {
	defer func(b int64) { pageRegBytes = b }(pageRegBytes)
	host, err := cuda.Open("host")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	dev := &pageCopyCounter{windowCounter: windowCounter{Device: host}}
	slots := PageSlots(testLayout, 0)
	var memory []PageBuffer
	for _, s := range slots {
		memory = append(memory, PageBuffer{Mem: make([]byte, 8*s.Bytes), PageBytes: s.Bytes})
	}
	pageRegBytes = 2 * slots[0].Bytes // parts of 2 pages of slot 0
	page := func(slot, block int) []byte {
		n := int(slots[slot].Bytes)
		return memory[slot].Mem[block*n : (block+1)*n]
	}
	m, err := NewDeviceMover(dev, newMem(t), slots, DeviceMoverOptions{Batch: 16, StagingBytes: 1 << 20, PageMemory: memory})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	// Blocks 0 and 1 of slot 0 are adjacent (one copy), block 3 is not, and
	// slot 1's page lies in the other buffer: three copies.
	at := [][2]int{{0, 0}, {0, 1}, {0, 3}, {len(slots) - 1, 0}}
	items := make([]pool.PutItem, len(at))
	var want int64
	for i, a := range at {
		p := page(a[0], a[1])
		for j := range p {
			p[j] = byte(i*31 + j)
		}
		items[i] = pool.PutItem{Key: fmt.Sprintf("k%d", i), Value: p}
		want += int64(len(p))
	}
	codes := make([]pool.Code, len(items))
	if err := m.Save(context.Background(), &stats.PhaseTimer{}, items, codes); err != nil {
		t.Fatalf("Save error = %v", err)
	}
	if dev.pagesUp != 3 || dev.pagesUpBytes != want || dev.imageBytes() != 0 {
		t.Errorf("Save moved %d bytes in %d copies from the pages and %d through the image, want %d in 3 and 0", dev.pagesUpBytes, dev.pagesUp, dev.imageBytes(), want)
	}
	if len(dev.regs) != 3 { // blocks 0-1 and 2-3 of slot 0, the first part of the other
		t.Errorf("Save registered %d parts of the page memory, want 3", len(dev.regs))
	}

	// Load them into blocks 4, 5 and 7 and slot 1's block 2, with a missing key.
	dst := [][2]int{{0, 4}, {0, 5}, {0, 7}, {len(slots) - 1, 2}, {0, 6}}
	keys, pages, n := make([]string, len(dst)), make([][]byte, len(dst)), make([]int64, len(dst))
	for i, a := range dst {
		keys[i], pages[i] = fmt.Sprintf("k%d", i), page(a[0], a[1])
	}
	keys[4] = "absent"
	if err := m.Load(context.Background(), &stats.PhaseTimer{}, keys, pages, n); err != nil {
		t.Fatalf("Load error = %v", err)
	}
	if dev.pagesDown != 3 || dev.imageBytes() != 0 {
		t.Errorf("Load made %d copies into the pages and moved %d bytes through the image, want 3 and 0", dev.pagesDown, dev.imageBytes())
	}
	if len(dev.regs) != 5 { // and blocks 4-5 and 6-7 of slot 0
		t.Errorf("after Load, %d parts of the page memory registered, want 5", len(dev.regs))
	}
	for i := range items {
		if !bytes.Equal(pages[i], items[i].Value) || n[i] != int64(len(pages[i])) {
			t.Errorf("loaded page %d: n = %d, bytes equal %v", i, n[i], bytes.Equal(pages[i], items[i].Value))
		}
	}
	if n[4] != int64(pool.ObjectNotFound) || bytes.Count(pages[4], []byte{0}) != len(pages[4]) {
		t.Errorf("missing page: n = %d, want %d and the page untouched", n[4], pool.ObjectNotFound)
	}

	odd := []PageBuffer{{Mem: make([]byte, 100), PageBytes: 64}}
	if _, err := NewDeviceMover(dev, newMem(t), slots, DeviceMoverOptions{Batch: 16, StagingBytes: 1 << 20, PageMemory: odd}); err == nil {
		t.Error("NewDeviceMover with 100 bytes of 64-byte pages: error = nil, want them refused")
	}
	for _, bad := range []pool.PutItem{
		{Key: "stray", Value: make([]byte, slots[0].Bytes)},
		{Key: "askew", Value: memory[0].Mem[1 : 1+slots[0].Bytes]},
	} {
		if err := m.Save(context.Background(), &stats.PhaseTimer{}, []pool.PutItem{bad}, codes[:1]); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad.Key)) {
			t.Errorf("Save of page %q: error = %v, want one naming it", bad.Key, err)
		}
	}
}

// Copies that continue each other join only within one registration: a
// GPU maps registered memory at its host address, so two parts registered
// apart can be adjacent in the device's space too.
func TestPageCopiesJoinWithinOneRegistration(t *testing.T) {
	a := cuda.Copy{Dst: 0x1000, Src: 0x9000, Bytes: 0x100}
	b := cuda.Copy{Dst: 0x1100, Src: 0x9100, Bytes: 0x100}
	if got := appendJoined([]cuda.Copy{a}, b, true); len(got) != 1 || got[0].Bytes != 0x200 {
		t.Errorf("adjacent copies in one registration: %v, want one copy of 0x200 bytes", got)
	}
	if got := appendJoined([]cuda.Copy{a}, b, false); len(got) != 2 {
		t.Errorf("adjacent copies in two registrations: %v, want two copies", got)
	}
	c := cuda.Copy{Dst: 0x1200, Src: 0x9100, Bytes: 0x100}
	if got := appendJoined([]cuda.Copy{a}, c, true); len(got) != 2 {
		t.Errorf("copies adjacent on one side only: %v, want two copies", got)
	}
}
