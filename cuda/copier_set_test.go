package cuda

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
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
		cp, s := mustKernelCopier(t, d)
		cp.SetOverlap(true)
		const n, size = 48, 32 << 10
		r := rand.New(rand.NewPCG(41, 42))
		perm := r.Perm(n)
		dev := mustAlloc(t, d, n*size)
		src := randomBytes(r, n*size)
		if err := d.CopyHtoD(s, dev, src); err != nil {
			t.Fatal(err)
		}
		out := mustAllocHost(t, d, n*size)
		var copies []Copy
		for i := range n {
			copies = append(copies, Copy{Dst: out.Ptr().Add(int64(i) * size), Src: dev.Add(int64(perm[i]) * size), Bytes: size})
		}
		set := mustDescSet(t, cp)
		describeParts(t, set, DeviceToHost, copies, 5)
		if err := cp.LaunchSet(s, set); err != nil {
			t.Fatalf("LaunchSet error = %v", err)
		}
		if err := cp.Synchronize(s); err != nil {
			t.Fatal(err)
		}
		for i, p := range perm {
			if !bytes.Equal(out.Bytes()[i*size:(i+1)*size], src[p*size:(p+1)*size]) {
				t.Fatalf("saved region %d (device slot %d) differs", i, p)
			}
		}
		if err := set.Drop(0, 1); err == nil {
			t.Errorf("Drop on a device-to-host set error = nil, want an error")
		}
	})
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
