package cuda

import "testing"

// BenchmarkKernelSetHostWork measures kernel mode's host work for one
// 16 MiB set of 4 KiB pages of two regions whose host sides are one run
// (a direct set read from adjacent pool values): finding the runs,
// rewriting the copies to the bounce buffer and writing the descriptors.
// The copies themselves are not run.
func BenchmarkKernelSetHostWork(b *testing.B) {
	d, c, copies := newSetBench(b)
	s, err := d.NewStream()
	if err != nil {
		b.Fatal(err)
	}
	slot, err := c.descs.acquire(regions)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		runs, _, err := c.bounce(s, c.bounces.take(), HostToDevice, copies)
		if err != nil {
			b.Fatal(err)
		}
		countChunks(copies, kernelChunk)
		encodeChunks(slot.mem.Bytes(), HostToDevice, copies, runs, kernelChunk)
	}
}

// BenchmarkDescSetHostWork measures the same set's host work described
// ahead (DescSet): the parts' descriptors, 64 pages each as direct store
// calls write them ("parts", on the crew), then the joining of the
// parts' runs that is left to the goroutine that launches ("launch").
func BenchmarkDescSetHostWork(b *testing.B) {
	const partLen = 128
	_, c, copies := newSetBench(b)
	set, err := c.NewDescSet()
	if err != nil {
		b.Fatal(err)
	}
	defer set.Close()
	describe := func() {
		if err := set.Begin(HostToDevice, regions/partLen, regions, regions*regionBytes); err != nil {
			b.Fatal(err)
		}
		for j := range regions / partLen {
			set.Describe(j, j*partLen, int64(j*partLen)*regionBytes, copies[j*partLen:(j+1)*partLen])
		}
	}
	b.Run("parts", func(b *testing.B) {
		for b.Loop() {
			describe()
		}
	})
	b.Run("launch", func(b *testing.B) {
		describe()
		for b.Loop() {
			if dma := set.joinRuns(); len(dma) != 1 {
				b.Fatalf("joinRuns() = %d run copies, want 1", len(dma))
			}
		}
	})
}

// The set of the host-work benchmarks: 4,096 pages of 4 KiB, two regions
// each, adjacent on the host, region-major on the device.
const regions, regionBytes = 8192, 2 << 10

// newSetBench opens a host device and a kernel-mode copier on it, closed
// when b ends, and returns the set's copies: region r of page p lies in
// region pool r on the device.
func newSetBench(b *testing.B) (Device, *Copier, []Copy) {
	d := newHostDevice("")
	b.Cleanup(func() { d.Close() })
	host, err := d.AllocHost(regions * regionBytes)
	if err != nil {
		b.Fatal(err)
	}
	gpu, err := d.Alloc(regions * regionBytes)
	if err != nil {
		b.Fatal(err)
	}
	c, err := NewCopier(d, ModeKernel)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	copies := make([]Copy, regions)
	for i := range copies {
		p, r := i/2, i%2
		copies[i] = Copy{Src: host.Ptr().Add(int64(i) * regionBytes), Dst: gpu.Add(int64(r*regions/2+p) * regionBytes), Bytes: regionBytes}
	}
	return d, c, copies
}
