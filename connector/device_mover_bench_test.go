package connector

import (
	"context"
	"fmt"
	"testing"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/stats"
)

// callCounter is a device that counts the calls that queue device work.
type callCounter struct {
	cuda.Device
	calls int
}

func (c *callCounter) CopyHtoD(s cuda.Stream, dst cuda.DevPtr, src []byte) error {
	c.calls++
	return c.Device.CopyHtoD(s, dst, src)
}

func (c *callCounter) CopyDtoH(s cuda.Stream, dst []byte, src cuda.DevPtr) error {
	c.calls++
	return c.Device.CopyDtoH(s, dst, src)
}

func (c *callCounter) Memcpy(s cuda.Stream, kind cuda.CopyKind, copies []cuda.Copy) error {
	c.calls += len(copies)
	return c.Device.Memcpy(s, kind, copies)
}

func (c *callCounter) MemcpyBatch(s cuda.Stream, kind cuda.CopyKind, copies []cuda.Copy) error {
	c.calls++
	return c.Device.MemcpyBatch(s, kind, copies)
}

func (c *callCounter) Launch(s cuda.Stream, k cuda.Kernel, grid, block cuda.Dim3, args ...uint64) error {
	c.calls++
	return c.Device.Launch(s, k, grid, block, args...)
}

// BenchmarkDeviceMoverSmallPass is the host work of one of serve's small
// passes: a save of 4 pages (and their removal from the pool, so that the
// next save puts them again), and a load of them, direct (the pool's
// arenas mapped) and staged, with 64 KiB pages and with 4 KiB pages, whose
// copies take less of the time. device-calls/op counts the calls that
// queue copies or kernels.
func BenchmarkDeviceMoverSmallPass(b *testing.B) {
	for _, size := range []int{64 << 10, 4 << 10} {
		for _, direct := range []bool{true, false} {
			b.Run(fmt.Sprintf("%dKiB/direct=%v", size>>10, direct), func(b *testing.B) {
				benchmarkSmallPass(b, size, direct)
			})
		}
	}
}

func benchmarkSmallPass(b *testing.B, size int, direct bool) {
	const pages = 4
	layout := keys.Layout{TokensPerBlock: testT, World: 1, Ranks: []int{0},
		LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: int64(size)}}}
	host, err := cuda.Open("host")
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close()
	dev := &callCounter{Device: host}
	store, err := mem.New(mem.Options{Capacity: 64 << 20, Segments: 1, Eviction: mem.EvictManual})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	m, err := NewDeviceMover(dev, store, PageSlots(layout, 0), DeviceMoverOptions{Batch: DefaultTransferBatchSize, StagingBytes: DefaultStagingBufferBytes, Direct: direct})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	items, keyList, bufs := make([]pool.PutItem, pages), make([]string, pages), make([][]byte, pages)
	for i := range items {
		keyList[i], bufs[i] = fmt.Sprintf("page-%d", i), make([]byte, size)
		items[i] = pool.PutItem{Key: keyList[i], Value: make([]byte, size)}
	}
	codes, n, ctx := make([]pool.Code, pages), make([]int64, pages), context.Background()
	b.Run("save", func(b *testing.B) {
		dev.calls = 0
		for b.Loop() {
			if err := m.Save(ctx, &stats.PhaseTimer{}, items, codes); err != nil || codes[0] != pool.OK {
				b.Fatalf("Save = %v, %v", err, codes[0])
			}
			if err := store.Remove(ctx, keyList, true, codes); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(dev.calls)/float64(b.N), "device-calls/op")
	})
	if err := m.Save(ctx, &stats.PhaseTimer{}, items, codes); err != nil {
		b.Fatal(err)
	}
	b.Run("load", func(b *testing.B) {
		dev.calls = 0
		for b.Loop() {
			if err := m.Load(ctx, &stats.PhaseTimer{}, keyList, bufs, n); err != nil || n[0] != int64(size) {
				b.Fatalf("Load = %v, %d bytes", err, n[0])
			}
		}
		b.ReportMetric(float64(dev.calls)/float64(b.N), "device-calls/op")
	})
}
