package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunWriterDescribesAsDescribe writes a staged save's run (regions
// of uneven sizes, one over two descriptors, device sides scattered) with
// a RunWriter and with Describe, into two sets, and checks their
// descriptors and bounce copies are the same: in the bounce buffer when
// the run fits it from its place, on the host when it does not.
func TestRunWriterDescribesAsDescribe(t *testing.T) {
	sizes := []int64{2048, 7000, 20 << 10}
	for _, c := range []struct {
		n  int
		at int64
	}{{6, 0}, {120, 0}, {6, minDMARun}, {120, minDMARun}} {
		n, at := c.n, c.at
		t.Run(fmt.Sprintf("%d regions at %d", n, at), func(t *testing.T) {
			d := newHostDevice("")
			t.Cleanup(func() { d.Close() })
			cp, _ := mustKernelCopier(t, d)
			r := rand.New(rand.NewPCG(61, uint64(n)))
			var total int64
			for i := range n {
				total += sizes[i%len(sizes)]
			}
			host := mustAllocHost(t, d, total)
			dev := mustAlloc(t, d, total)
			copies := saveCopies(stagedCopies(host.Ptr(), dev, sizes, r.Perm(n)))
			descs := 0
			for _, c := range copies {
				descs += KernelDescs(c.Bytes)
			}
			want, got := mustDescSet(t, cp), mustDescSet(t, cp)
			for _, set := range []*DescSet{want, got} {
				if err := set.Begin(DeviceToHost, 2, descs, 2*minDMARun); err != nil {
					t.Fatal(err)
				}
			}
			want.Describe(0, 0, at, copies)
			run := got.BeginRun(0, 0, at, host.Ptr(), total)
			for _, c := range copies {
				run.Add(c.Src, c.Bytes)
			}
			if err := run.End(); err != nil {
				t.Fatalf("End error = %v", err)
			}
			if g, w := got.joinRuns(), want.joinRuns(); !cmp.Equal(inBounce(got, g), inBounce(want, w)) {
				t.Errorf("joinRuns() = %+v, want %+v", g, w)
			}
			g, w := DecodeDescs(got.descs.Bytes(), descs), DecodeDescs(want.descs.Bytes(), descs)
			if diff := cmp.Diff(inBounce(want, w), inBounce(got, g)); diff != "" {
				t.Errorf("RunWriter's descriptors differ from Describe's (-want +got):\n%s", diff)
			}
		})
	}
}

// inBounce is copies with the addresses in set's bounce buffer made
// offsets into it (marked by the top bit), so that two sets compare.
func inBounce(set *DescSet, copies []Copy) []Copy {
	out := make([]Copy, len(copies))
	b := set.bounce
	rel := func(p DevPtr) DevPtr {
		if b.cap > 0 && b.buf <= p && p < b.buf.Add(b.cap) {
			return p - b.buf | 1<<63
		}
		return p
	}
	for i, c := range copies {
		out[i] = Copy{Dst: rel(c.Dst), Src: rel(c.Src), Bytes: c.Bytes}
	}
	return out
}

// saveCopies turns host-to-device copies into the device-to-host ones of
// the same regions.
func saveCopies(copies []Copy) []Copy {
	out := make([]Copy, len(copies))
	for i, c := range copies {
		out[i] = Copy{Dst: c.Src, Src: c.Dst, Bytes: c.Bytes}
	}
	return out
}

// TestRunWriterEndFailsShortRun checks End names a run whose pieces do
// not make up the bytes BeginRun was given.
func TestRunWriterEndFailsShortRun(t *testing.T) {
	d := newHostDevice("")
	t.Cleanup(func() { d.Close() })
	cp, _ := mustKernelCopier(t, d)
	host := mustAllocHost(t, d, 8192)
	dev := mustAlloc(t, d, 8192)
	set := mustDescSet(t, cp)
	if err := set.Begin(DeviceToHost, 1, 2, 8192); err != nil {
		t.Fatal(err)
	}
	w := set.BeginRun(0, 0, 0, host.Ptr(), 8192)
	w.Add(dev, 4096)
	if err := w.End(); err == nil {
		t.Errorf("End after 4096 of 8192 bytes error = nil, want an error")
	}
}

// TestRunWriterSavesThroughBounce gathers scattered device regions into
// one pinned buffer through a run described with a RunWriter and checks
// every region lands at its place.
func TestRunWriterSavesThroughBounce(t *testing.T) {
	const n, size = 96, 24 << 10 // each region two descriptors
	eachDevice(t, func(t *testing.T, d Device) {
		savesScattered(t, d, n, size, 71, func(set *DescSet, out *HostMem, dev DevPtr, perm []int) {
			if err := set.Begin(DeviceToHost, 1, n*KernelDescs(size), n*size); err != nil {
				t.Fatal(err)
			}
			w := set.BeginRun(0, 0, 0, out.Ptr(), n*size)
			for _, p := range perm {
				w.Add(dev.Add(int64(p)*size), size)
			}
			if err := w.End(); err != nil {
				t.Fatalf("End error = %v", err)
			}
		})
	})
}
