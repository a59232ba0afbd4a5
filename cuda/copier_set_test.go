package cuda

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// describeParts begins set d of copies cut into parts of partLen copies
// and describes the parts concurrently, each starting once the part after
// it finished, so that the parts finish last to first.
func describeParts(t *testing.T, d *DescSet, kind CopyKind, copies []Copy, partLen int) {
	t.Helper()
	parts := (len(copies) + partLen - 1) / partLen
	descs, at := []int{0}, []int64{0}
	for _, cp := range copies {
		descs = append(descs, descs[len(descs)-1]+KernelDescs(cp.Bytes))
		at = append(at, at[len(at)-1]+cp.Bytes)
	}
	if err := d.Begin(kind, parts, descs[len(copies)], at[len(copies)]); err != nil {
		t.Fatalf("Begin error = %v", err)
	}
	var wg sync.WaitGroup
	next := make(chan struct{})
	close(next)
	for j := parts - 1; j >= 0; j-- {
		wait, done := next, make(chan struct{})
		next = done
		wg.Go(func() {
			<-wait
			lo, hi := j*partLen, min((j+1)*partLen, len(copies))
			d.Describe(j, descs[lo], at[lo], copies[lo:hi])
			close(done)
		})
	}
	wg.Wait()
}

// holed is copies with copy i a hole.
func holed(copies []Copy, i int) []Copy {
	out := append([]Copy(nil), copies...)
	out[i] = Copy{Bytes: out[i].Bytes}
	return out
}

// TestDescSetLoadsPartsOutOfOrder describes a load of two runs of
// adjacent host regions, one long enough for the bounce buffer and one
// not, both crossing parts, with a hole, its parts finishing last to
// first, and checks each descriptor lies at its copy's offset with its
// host side; then the same regions adjacent on the host, one copy's
// descriptors dropped, and checks every region landed but the hole's
// and the dropped one's.
func TestDescSetLoadsPartsOutOfOrder(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		cp.SetOverlap(true)
		const n, size, hole, dropped = 40, 24 << 10, 45, 50 // runs of 960 KiB; two descriptors a copy
		r := rand.New(rand.NewPCG(31, 32))
		perm := r.Perm(2 * n)
		host := mustAllocHost(t, d, (2*n+1)*size)
		dev := mustAlloc(t, d, 2*n*size)
		src := randomBytes(r, (2*n+1)*size)
		copy(host.Bytes(), src)
		if err := d.CopyHtoD(s, dev, make([]byte, 2*n*size)); err != nil {
			t.Fatal(err)
		}
		copies := holed(runCopies(HostToDevice, host.Ptr(), dev, n, size, perm), hole)
		set := mustDescSet(t, cp)
		describeParts(t, set, HostToDevice, copies, 7)
		if dma := set.joinRuns(); len(dma) != 0 {
			t.Fatalf("joinRuns() = %d run copies, want none (runs under minDMARun)", len(dma))
		}
		checkDescs(t, set, copies, size)
		// The regions adjacent on the host: a run of 45 (1,080 KiB, through
		// the bounce buffer), the hole, a run of 34 (816 KiB, from the SMs).
		for i := range copies {
			copies[i] = Copy{Dst: dev.Add(int64(perm[i]) * size), Src: host.Ptr().Add(int64(i) * size), Bytes: size}
		}
		copies = holed(copies, hole)
		describeParts(t, set, HostToDevice, copies, 7)
		if err := set.Drop(2*dropped, 2); err != nil {
			t.Fatalf("Drop error = %v", err)
		}
		if err := cp.LaunchSet(s, set); err != nil {
			t.Fatalf("LaunchSet error = %v", err)
		}
		got := readBack(t, d, s, dev, 2*n*size)
		for i := range copies {
			slot := perm[i]
			want := src[i*size : (i+1)*size]
			if i == hole || i == dropped {
				want = make([]byte, size)
			}
			if !bytes.Equal(got[slot*size:(slot+1)*size], want) {
				t.Fatalf("region %d (device slot %d) differs from its source", i, slot)
			}
		}
	})
}

// checkDescs checks that d's descriptors are those of copies of size
// bytes, two pieces each (empty for a hole), host sides not rebased.
func checkDescs(t *testing.T, d *DescSet, copies []Copy, size int64) {
	t.Helper()
	got := DecodeDescs(d.descs.Bytes(), d.n)
	for i, c := range copies {
		for k := range 2 {
			off := int64(k) * kernelChunk
			want := Copy{Dst: c.Dst.Add(off), Src: c.Src.Add(off), Bytes: min(kernelChunk, size-off)}
			if IsHole(c) {
				want = Copy{}
			}
			if g := got[2*i+k]; g != want {
				t.Fatalf("descriptor %d (copy %d) = %+v, want %+v", 2*i+k, i, g, want)
			}
		}
	}
}

// TestDescSetSavesThroughBounce saves scattered device regions into one
// run of adjacent host regions described in parts finishing out of
// order, and checks every byte came back.
func TestDescSetSavesThroughBounce(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		set := savesScattered(t, d, 48, 32<<10, 41, func(set *DescSet, out *HostMem, dev DevPtr, perm []int) {
			var copies []Copy
			for i, p := range perm {
				copies = append(copies, Copy{Dst: out.Ptr().Add(int64(i) * 32 << 10), Src: dev.Add(int64(p) * 32 << 10), Bytes: 32 << 10})
			}
			describeParts(t, set, DeviceToHost, copies, 5)
		})
		if err := set.Drop(0, 1); err == nil {
			t.Errorf("Drop on a device-to-host set error = nil, want an error")
		}
	})
}

// savesScattered fills n regions of size bytes on d with random bytes,
// has describe write a save set of them that gathers region perm[i] into
// place i of a pinned buffer, out, launches the set through a kernel-mode
// copier with overlap and checks every region landed. It returns the set.
func savesScattered(t *testing.T, d Device, n int, size int64, seed uint64, describe func(set *DescSet, out *HostMem, dev DevPtr, perm []int)) *DescSet {
	t.Helper()
	cp, s := mustKernelCopier(t, d)
	cp.SetOverlap(true)
	r := rand.New(rand.NewPCG(seed, seed+1))
	perm := r.Perm(n)
	dev := mustAlloc(t, d, int64(n)*size)
	src := randomBytes(r, n*int(size))
	if err := d.CopyHtoD(s, dev, src); err != nil {
		t.Fatal(err)
	}
	out := mustAllocHost(t, d, int64(n)*size)
	set := mustDescSet(t, cp)
	describe(set, out, dev, perm)
	if err := cp.LaunchSet(s, set); err != nil {
		t.Fatalf("LaunchSet error = %v", err)
	}
	if err := cp.Synchronize(s); err != nil {
		t.Fatal(err)
	}
	for i, p := range perm {
		if !bytes.Equal(out.Bytes()[int64(i)*size:int64(i+1)*size], src[int64(p)*size:int64(p+1)*size]) {
			t.Fatalf("saved region %d (device slot %d) differs", i, p)
		}
	}
	return set
}

// mustDescSet returns a DescSet of cp, closed when the test ends.
func mustDescSet(t *testing.T, cp *Copier) *DescSet {
	t.Helper()
	set, err := cp.NewDescSet()
	if err != nil {
		t.Fatalf("NewDescSet error = %v", err)
	}
	t.Cleanup(func() { set.Close() })
	return set
}

// TestDescSetStagedRunIsOneCopy describes, in parts finishing last to
// first, a load whose host sides lie one after the other in one pinned
// buffer (a staged set: regions of uneven sizes, device sides
// scattered), and checks the set's bounce copies are exactly one, of the
// whole buffer, and that every region lands.
func TestDescSetStagedRunIsOneCopy(t *testing.T) {
	sizes := []int64{2048, 7000, 20 << 10} // one, one and two descriptors
	for _, partLen := range []int{1, 3, 7, 40} {
		t.Run(fmt.Sprintf("parts of %d", partLen), func(t *testing.T) {
			stagedRunIsOneCopy(t, sizes, partLen)
		})
	}
}

// stagedRunIsOneCopy is TestDescSetStagedRunIsOneCopy with parts of
// partLen copies.
func stagedRunIsOneCopy(t *testing.T, sizes []int64, partLen int) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		cp.SetOverlap(true)
		const n = 120
		r := rand.New(rand.NewPCG(51, uint64(partLen)))
		var total int64
		for i := range n {
			total += sizes[i%len(sizes)]
		}
		host := mustAllocHost(t, d, total)
		src := randomBytes(r, int(total))
		copy(host.Bytes(), src)
		dev := mustAlloc(t, d, total)
		copies := stagedCopies(host.Ptr(), dev, sizes, r.Perm(n))
		set := mustDescSet(t, cp)
		describeParts(t, set, HostToDevice, copies, partLen)
		want := []Copy{{Dst: set.bounce.buf, Src: host.Ptr(), Bytes: total}}
		if got := set.joinRuns(); !cmp.Equal(got, want) {
			t.Fatalf("joinRuns() = %+v, want %+v", got, want)
		}
		describeParts(t, set, HostToDevice, copies, partLen)
		if err := cp.LaunchSet(s, set); err != nil {
			t.Fatalf("LaunchSet error = %v", err)
		}
		got := readBack(t, d, s, dev, int(total))
		var at int64
		for _, c := range copies {
			off := int64(c.Dst - dev)
			if !bytes.Equal(got[off:off+c.Bytes], src[at:at+c.Bytes]) {
				t.Fatalf("region at staging offset %d differs from its source", at)
			}
			at += c.Bytes
		}
	})
}

// stagedCopies describes regions of sizes in turn, one after the other
// on the host from host, laid out on the device from dev in the order
// perm (region perm[0] first), so that the device sides are scattered.
func stagedCopies(host, dev DevPtr, sizes []int64, perm []int) []Copy {
	out := make([]Copy, len(perm))
	var at int64
	for i := range out {
		out[i] = Copy{Src: host.Add(at), Bytes: sizes[i%len(sizes)]}
		at += out[i].Bytes
	}
	var on int64
	for _, i := range perm {
		out[i].Dst = dev.Add(on)
		on += out[i].Bytes
	}
	return out
}

// TestDescSetJoinsRunsInHostOrder describes sets whose parts each hold a
// run of adjacent host regions too short to move alone, the parts' runs
// following each other on the host in an order unlike the set's (as the
// store calls of one set place their values on many threads), and
// checks the set moves through one copy of the whole host range and that
// every region lands, for a load and a save.
func TestDescSetJoinsRunsInHostOrder(t *testing.T) {
	for _, kind := range []CopyKind{HostToDevice, DeviceToHost} {
		for _, ahead := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s joined ahead %t", kind, ahead), func(t *testing.T) {
				eachDevice(t, func(t *testing.T, d Device) { joinsRunsInHostOrder(t, d, kind, ahead) })
			})
		}
	}
}

// joinsRunsInHostOrder is TestDescSetJoinsRunsInHostOrder for kind on d,
// the set joined (DescSet.Join) before its launch when ahead.
func joinsRunsInHostOrder(t *testing.T, d Device, kind CopyKind, ahead bool) {
	cp, s := mustKernelCopier(t, d)
	cp.SetOverlap(true)
	const parts, partLen, size = 16, 4, 24 << 10 // runs of 96 KiB, 1.5 MiB in all
	const n = parts * partLen
	r := rand.New(rand.NewPCG(61, uint64(kind)))
	order, perm := r.Perm(parts), r.Perm(n)
	host := mustAllocHost(t, d, n*size)
	dev := mustAlloc(t, d, n*size)
	src := randomBytes(r, n*size)
	var copies []Copy
	for i := range n {
		h := host.Ptr().Add(int64(order[i/partLen]*partLen+i%partLen) * size)
		c := Copy{Dst: dev.Add(int64(perm[i]) * size), Src: h, Bytes: size}
		if kind == DeviceToHost {
			c = Copy{Dst: h, Src: c.Dst, Bytes: size}
		}
		copies = append(copies, c)
	}
	set := mustDescSet(t, cp)
	describeParts(t, set, kind, copies, partLen)
	want := []Copy{dmaCopy(kind, host.Ptr(), set.bounce.buf, n*size)}
	if got := set.joinRuns(); !cmp.Equal(got, want) {
		t.Fatalf("joinRuns() = %+v, want %+v", got, want)
	}
	fromBase, toBase := host.Ptr(), dev
	if kind == DeviceToHost {
		fromBase, toBase = dev, host.Ptr()
		if err := d.CopyHtoD(s, dev, src); err != nil {
			t.Fatal(err)
		}
	} else {
		copy(host.Bytes(), src)
	}
	describeParts(t, set, kind, copies, partLen)
	if ahead {
		set.Join()
	}
	if err := cp.LaunchSet(s, set); err != nil {
		t.Fatalf("LaunchSet error = %v", err)
	}
	if err := cp.Synchronize(s); err != nil {
		t.Fatal(err)
	}
	got := host.Bytes()
	if kind == HostToDevice {
		got = readBack(t, d, s, dev, n*size)
	}
	for _, c := range copies {
		from, to := int64(c.Src-fromBase), int64(c.Dst-toBase)
		if !bytes.Equal(got[to:to+size], src[from:from+size]) {
			t.Fatalf("region copied from offset %d to offset %d differs from its source", from, to)
		}
	}
}
