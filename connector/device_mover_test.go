package connector

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// windowCounter is a device that sums the bytes of its host<->device
// copies.
type windowCounter struct {
	cuda.Device
	up, down int64
}

func (w *windowCounter) CopyHtoD(s cuda.Stream, dst cuda.DevPtr, src []byte) error {
	w.up += int64(len(src))
	return w.Device.CopyHtoD(s, dst, src)
}

func (w *windowCounter) CopyDtoH(s cuda.Stream, dst []byte, src cuda.DevPtr) error {
	w.down += int64(len(dst))
	return w.Device.CopyDtoH(s, dst, src)
}

func TestDeviceMoverMovesOnlyTheBatchsWindowPages(t *testing.T) {
	host, err := cuda.Open("host")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	dev := &windowCounter{Device: host}
	store := newMem(t)
	m, err := NewDeviceMover(dev, store, PageSlots(testLayout, 0), DeviceMoverOptions{Batch: 16, StagingBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// Three 64-byte pages and one 32-byte page, in windows of 16 pages.
	items := make([]pool.PutItem, 4)
	for i := range items {
		size := 64
		if i == 3 {
			size = 32
		}
		items[i] = pool.PutItem{Key: fmt.Sprintf("k%d", i), Value: bytes.Repeat([]byte{byte(i + 1)}, size)}
	}
	codes := make([]pool.Code, len(items))
	dev.up = 0
	if err := m.Save(context.Background(), &stats.PhaseTimer{}, items, codes); err != nil {
		t.Fatalf("Save error = %v", err)
	}
	if want := int64(3*64 + 32); dev.up != want {
		t.Errorf("Save of 3 + 1 pages uploaded %d bytes of the window, want %d", dev.up, want)
	}
	keys, pages, n := make([]string, 4), make([][]byte, 4), make([]int64, 4)
	for i, it := range items {
		keys[i], pages[i] = it.Key, make([]byte, len(it.Value))
	}
	dev.down = 0
	if err := m.Load(context.Background(), &stats.PhaseTimer{}, keys, pages, n); err != nil {
		t.Fatalf("Load error = %v", err)
	}
	if want := int64(3*64 + 32); dev.down != want {
		t.Errorf("Load of 3 + 1 pages downloaded %d bytes of the window, want %d", dev.down, want)
	}
	for i, it := range items {
		if diff := cmp.Diff(it.Value, pages[i]); diff != "" || n[i] != int64(len(it.Value)) {
			t.Errorf("Load page %d: n = %d, (-want +got):\n%s", i, n[i], diff)
		}
	}
}

// The mover's copy mode reaches its loader and saver: a mode package cuda
// does not know is refused there, and kernel mode opens (the engine's
// replay moves pages with it: TestReplayEndToEnd).
func TestDeviceMoverCopyMode(t *testing.T) {
	host, err := cuda.Open("host")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if _, err := NewDeviceMover(host, newMem(t), PageSlots(testLayout, 0), DeviceMoverOptions{Batch: 4, StagingBytes: 1 << 20, Mode: "teleport"}); err == nil {
		t.Fatal("NewDeviceMover(mode teleport) error = nil, want the mode refused")
	}
	m, err := NewDeviceMover(host, newMem(t), PageSlots(testLayout, 0), DeviceMoverOptions{Batch: 4, StagingBytes: 1 << 20, Mode: cuda.ModeKernel})
	if err != nil {
		t.Fatalf("NewDeviceMover(kernel) error = %v", err)
	}
	m.Close()
}
