package connector

import (
	"bytes"
	"context"
	"fmt"
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

// With the runtime's page memory registered, pages move between it and
// the window by the device's copies alone, adjacent pages in one copy; a
// page outside it is refused, and a missing page is left as it was.
func TestDeviceMoverMovesPagesInPlace(t *testing.T) {
	host, err := cuda.Open("host")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	dev := &pageCopyCounter{windowCounter: windowCounter{Device: host}}
	slots := PageSlots(testLayout, 0)
	var memory [][]byte
	for _, s := range slots {
		memory = append(memory, make([]byte, 8*s.Bytes))
	}
	page := func(slot, block int) []byte {
		n := int(slots[slot].Bytes)
		return memory[slot][block*n : (block+1)*n]
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
	for i := range items {
		if !bytes.Equal(pages[i], items[i].Value) || n[i] != int64(len(pages[i])) {
			t.Errorf("loaded page %d: n = %d, bytes equal %v", i, n[i], bytes.Equal(pages[i], items[i].Value))
		}
	}
	if n[4] != int64(pool.ObjectNotFound) || bytes.Count(pages[4], []byte{0}) != len(pages[4]) {
		t.Errorf("missing page: n = %d, want %d and the page untouched", n[4], pool.ObjectNotFound)
	}

	outside := []pool.PutItem{{Key: "stray", Value: make([]byte, slots[0].Bytes)}}
	if err := m.Save(context.Background(), &stats.PhaseTimer{}, outside, codes[:1]); err == nil || !strings.Contains(err.Error(), `"stray"`) {
		t.Errorf("Save of a page outside the page memory: error = %v, want one naming it", err)
	}
}
