package cuda

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runCopies describes regions of size bytes: n adjacent ones on the host
// from host, then a gap, then n more, each mapped to device slot
// perm[i] of dev (so device sides are scattered).
func runCopies(kind CopyKind, host, dev DevPtr, n int, size int64, perm []int) []Copy {
	var out []Copy
	for i := range 2 * n {
		h := host.Add(int64(i) * size)
		if i >= n {
			h = h.Add(size) // the gap: a second run
		}
		d := dev.Add(int64(perm[i]) * size)
		c := Copy{Dst: d, Src: h, Bytes: size}
		if kind == DeviceToHost {
			c = Copy{Dst: h, Src: d, Bytes: size}
		}
		out = append(out, c)
	}
	return out
}

// mustKernelCopier returns a kernel-mode Copier, closed when the test
// ends, and a stream for it.
func mustKernelCopier(t *testing.T, d Device) (*Copier, Stream) {
	t.Helper()
	cp, err := NewCopier(d, ModeKernel)
	if err != nil {
		t.Fatalf("NewCopier(kernel) error = %v", err)
	}
	s := mustStream(t, d)
	t.Cleanup(func() {
		s.Synchronize()
		cp.Close()
	})
	return cp, s
}

func TestBounceFindsRuns(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		const size = 64 << 10
		// 16 regions of 64 KiB = one 1 MiB run (moved through the bounce
		// buffer), then 8 regions = a 512 KiB run (left to the kernel).
		in := []Copy{}
		for i := range 24 {
			host := DevPtr(1 << 40).Add(int64(i) * size)
			if i >= 16 {
				host = host.Add(4096)
			}
			in = append(in, Copy{Dst: DevPtr(1 << 30).Add(int64(23-i) * size), Src: host, Bytes: size})
		}
		b := cp.bounces.take()
		runs, dma, err := cp.bounce(s, b, HostToDevice, in)
		if err != nil {
			t.Fatalf("bounce error = %v", err)
		}
		want := []Copy{{Dst: b.buf, Src: 1 << 40, Bytes: 16 * size}}
		if diff := cmp.Diff(want, dma); diff != "" {
			t.Errorf("bounce runs mismatch (-want +got):\n%s", diff)
		}
		cp.SetBounce(false)
		if off, dmaOff, err := cp.bounce(s, b, HostToDevice, in); err != nil || len(dmaOff) != 0 || len(off) != 0 {
			t.Errorf("bounce with SetBounce(false) = %d runs, %d run copies, %v; want none", len(off), len(dmaOff), err)
		}
		cp.SetBounce(true)
		for i, c := range encoded(HostToDevice, in, runs) {
			wantSrc := in[i].Src
			if i < 16 {
				wantSrc = b.buf.Add(int64(i) * size)
			}
			if c.Src != wantSrc || c.Dst != in[i].Dst || c.Bytes != size {
				t.Errorf("rewritten copy %d = %+v, want source %#x, destination %#x", i, c, wantSrc, in[i].Dst)
			}
		}
	})
}

// TestKernelCopyThroughBounce moves two runs of adjacent host regions (one
// long enough for the bounce buffer) to and from scattered device slots
// with the kernel copier and checks every byte.
func TestKernelCopyThroughBounce(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		const n, size = 24, 64 << 10 // runs of 1.5 MiB
		r := rand.New(rand.NewPCG(11, 12))
		perm := r.Perm(2 * n)
		host := mustAllocHost(t, d, (2*n+1)*size)
		dev := mustAlloc(t, d, 2*n*size)
		src := randomBytes(r, (2*n+1)*size)
		copy(host.Bytes(), src)
		all := runCopies(HostToDevice, host.Ptr(), dev, n, size, perm)
		// A first 1 MiB run sizes the bounce buffer; the next copy grows
		// it while the first may still be queued.
		if err := cp.Copy(s, HostToDevice, all[:16]); err != nil {
			t.Fatalf("kernel Copy h2d error = %v", err)
		}
		if err := cp.Copy(s, HostToDevice, all); err != nil {
			t.Fatalf("kernel Copy h2d error = %v", err)
		}
		got := readBack(t, d, s, dev, 2*n*size)
		for i, p := range perm {
			h := int64(i) * size
			if i >= n {
				h += size
			}
			if !bytes.Equal(got[int64(p)*size:int64(p+1)*size], src[h:h+size]) {
				t.Fatalf("h2d region %d (device slot %d) differs", i, p)
			}
		}
		clear(host.Bytes())
		if err := cp.Copy(s, DeviceToHost, runCopies(DeviceToHost, host.Ptr(), dev, n, size, perm)); err != nil {
			t.Fatalf("kernel Copy d2h error = %v", err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		want := append([]byte(nil), src...)
		clear(want[n*size : (n+1)*size]) // the gap is not written back
		if !bytes.Equal(host.Bytes(), want) {
			t.Errorf("d2h through the bounce buffer: host bytes differ from the round trip's source")
		}
	})
}

// TestBounceRunStaysInOneRegistration moves regions that run from the end
// of one registration of host memory into the start of the next, mapped
// back to back (as host emulation maps registrations, and the driver may):
// each registration's part is a run of its own, since a copy's host side
// must lie inside one, and a round trip keeps every byte.
func TestBounceRunStaysInOneRegistration(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		const half, size = 1 << 20, 64 << 10
		a, b := mustRegister(t, d, 2*half), mustRegister(t, d, 2*half)
		if b.Ptr() != a.Ptr().Add(2*half) {
			t.Skipf("the registrations at %#x and %#x are not back to back", a.Ptr(), b.Ptr())
		}
		r := rand.New(rand.NewPCG(13, 14))
		dev := mustAlloc(t, d, 2*half)
		perm := r.Perm(2 * half / size)
		copies := func(kind CopyKind) []Copy {
			var out []Copy
			for i, p := range perm {
				h, dv := a.Ptr().Add(half+int64(i)*size), dev.Add(int64(p)*size)
				if kind == HostToDevice {
					out = append(out, Copy{Dst: dv, Src: h, Bytes: size})
				} else {
					out = append(out, Copy{Dst: h, Src: dv, Bytes: size})
				}
			}
			return out
		}
		bb := cp.bounces.take()
		_, dma, err := cp.bounce(s, bb, HostToDevice, copies(HostToDevice))
		want := []Copy{{Dst: bb.buf, Src: a.Ptr().Add(half), Bytes: half}, {Dst: bb.buf.Add(half), Src: b.Ptr(), Bytes: half}}
		if diff := cmp.Diff(want, dma); err != nil || diff != "" {
			t.Fatalf("bounce(regions across two registrations) error = %v, runs mismatch (-want +got):\n%s", err, diff)
		}
		src := randomBytes(r, 2*half)
		copy(a.Bytes()[half:], src[:half])
		copy(b.Bytes()[:half], src[half:])
		if err := cp.Copy(s, HostToDevice, copies(HostToDevice)); err != nil {
			t.Fatalf("kernel Copy h2d error = %v", err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatalf("kernel Copy h2d: stream error = %v", err)
		}
		clear(a.Bytes())
		clear(b.Bytes())
		if err := cp.Copy(s, DeviceToHost, copies(DeviceToHost)); err != nil {
			t.Fatalf("kernel Copy d2h error = %v", err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatalf("kernel Copy d2h: stream error = %v", err)
		}
		got := append(append([]byte(nil), a.Bytes()[half:]...), b.Bytes()[:half]...)
		if !bytes.Equal(got, src) {
			t.Errorf("round trip across two registrations: host bytes differ from the source")
		}
	})
}

// encoded is what the kernel is given for copies with runs: their
// descriptors, decoded, without cutting the copies into chunks.
func encoded(kind CopyKind, copies []Copy, runs []bounceRun) []Copy {
	b := make([]byte, len(copies)*DescBytes)
	encodeChunks(b, kind, copies, runs, 1<<40)
	return DecodeDescs(b, len(copies))
}

// mustRegister registers n new bytes with d, unregistered when the test
// ends.
func mustRegister(t *testing.T, d Device, n int) *HostMem {
	t.Helper()
	h, err := d.RegisterHost(make([]byte, n))
	if err != nil {
		t.Fatalf("RegisterHost(%d bytes) error = %v", n, err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}
