package cuda

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// eachDevice runs fn on host emulation and, where a driver and GPU are
// present, on cuda:0.
func eachDevice(t *testing.T, fn func(t *testing.T, d Device)) {
	t.Helper()
	t.Run("host", func(t *testing.T) {
		d := newHostDevice("")
		t.Cleanup(func() { d.Close() })
		fn(t, d)
	})
	t.Run("cuda", func(t *testing.T) {
		d, err := openDriverDevice(0)
		if err != nil {
			t.Skipf("no CUDA device: %v", err)
		}
		// Registered first, so it runs after the memory's cleanups.
		t.Cleanup(func() { d.Close() })
		fn(t, d)
	})
}

func randomBytes(r *rand.Rand, n int) []byte {
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(r.Uint32())
	}
	b := make([]byte, n)
	rand.NewChaCha8(seed).Read(b)
	return b
}

func mustStream(t *testing.T, d Device) Stream {
	t.Helper()
	s, err := d.NewStream()
	if err != nil {
		t.Fatalf("NewStream() error = %v", err)
	}
	t.Cleanup(func() { s.Destroy() })
	return s
}

func mustAlloc(t *testing.T, d Device, n int64) DevPtr {
	t.Helper()
	p, err := d.Alloc(n)
	if err != nil {
		t.Fatalf("Alloc(%d) error = %v", n, err)
	}
	t.Cleanup(func() { d.Free(p) })
	return p
}

func mustAllocHost(t *testing.T, d Device, n int64) *HostMem {
	t.Helper()
	h, err := d.AllocHost(n)
	if err != nil {
		t.Fatalf("AllocHost(%d) error = %v", n, err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// readBack copies n bytes at p to a new slice.
func readBack(t *testing.T, d Device, s Stream, p DevPtr, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	if err := d.CopyDtoH(s, out, p); err != nil {
		t.Fatalf("CopyDtoH error = %v", err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatalf("Synchronize() error = %v", err)
	}
	return out
}

func TestDeviceRoundTrip(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		r := rand.New(rand.NewPCG(1, 2))
		s := mustStream(t, d)
		const n = 1<<20 + 3
		p := mustAlloc(t, d, n)
		want := randomBytes(r, n)
		if err := d.CopyHtoD(s, p, want); err != nil {
			t.Fatalf("CopyHtoD error = %v", err)
		}
		if got := readBack(t, d, s, p, n); !bytes.Equal(got, want) {
			t.Errorf("round trip of %d bytes differs", n)
		}
	})
}

// copyCase is a batch of regions between pinned host memory and device
// memory, at scattered offsets, with sizes that exercise the kernels'
// aligned and byte paths and the 64 KiB split.
type copyCase struct {
	host   *HostMem
	dev    DevPtr
	copies []Copy // in the h2d direction
}

func newCopyCase(t *testing.T, d Device, r *rand.Rand) copyCase {
	sizes := []int64{1, 15, 16, 17, 4096, 4096, 65536, 70000, 3, 131072 + 16}
	var hostOff, devOff int64
	var cs []Copy
	for _, n := range sizes {
		cs = append(cs, Copy{Src: DevPtr(hostOff), Dst: DevPtr(devOff), Bytes: n})
		hostOff += (n + 15) / 16 * 16
		devOff += (n+15)/16*16 + 256 // gaps between regions
	}
	c := copyCase{host: mustAllocHost(t, d, hostOff), dev: mustAlloc(t, d, devOff)}
	r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	for _, x := range cs {
		c.copies = append(c.copies, Copy{Src: c.host.Ptr() + x.Src, Dst: c.dev + x.Dst, Bytes: x.Bytes})
	}
	copy(c.host.Bytes(), randomBytes(r, int(hostOff)))
	return c
}

func (c copyCase) reversed() []Copy {
	out := make([]Copy, len(c.copies))
	for i, x := range c.copies {
		out[i] = Copy{Src: x.Dst, Dst: x.Src, Bytes: x.Bytes}
	}
	return out
}

// hostRegion returns the host bytes of copy x (h2d direction).
func (c copyCase) hostRegion(x Copy) []byte {
	off := int64(x.Src - c.host.Ptr())
	return c.host.Bytes()[off : off+x.Bytes]
}

func TestCopierModes(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		for _, mode := range CopyModes {
			t.Run(string(mode), func(t *testing.T) {
				cp, err := NewCopier(d, mode)
				if errors.Is(err, ErrUnsupported) {
					t.Skipf("NewCopier(%s): %v", mode, err)
				}
				if err != nil {
					t.Fatalf("NewCopier(%s) error = %v", mode, err)
				}
				defer cp.Close()
				testCopierDirections(t, d, cp)
			})
		}
	})
}

func testCopierDirections(t *testing.T, d Device, cp *Copier) {
	r := rand.New(rand.NewPCG(3, 4))
	s := mustStream(t, d)
	c := newCopyCase(t, d, r)
	if err := cp.Copy(s, HostToDevice, c.copies); err != nil {
		t.Fatalf("Copy(h2d) error = %v", err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatalf("Synchronize after h2d: %v", err)
	}
	for i, x := range c.copies {
		if got := readBack(t, d, s, x.Dst, int(x.Bytes)); !bytes.Equal(got, c.hostRegion(x)) {
			t.Errorf("%s h2d region %d (%d bytes) differs", cp.Mode(), i, x.Bytes)
		}
	}
	want := append([]byte(nil), c.host.Bytes()...)
	clear(c.host.Bytes())
	// Twice, so that kernel mode reuses its descriptor buffers.
	for range 2 {
		if err := cp.Copy(s, DeviceToHost, c.reversed()); err != nil {
			t.Fatalf("Copy(d2h) error = %v", err)
		}
	}
	if err := s.Synchronize(); err != nil {
		t.Fatalf("Synchronize after d2h: %v", err)
	}
	for i, x := range c.copies {
		off := int64(x.Src - c.host.Ptr())
		if !bytes.Equal(c.hostRegion(x), want[off:off+x.Bytes]) {
			t.Errorf("%s d2h region %d (%d bytes) differs", cp.Mode(), i, x.Bytes)
		}
	}
}

func TestCopierGrowsDescriptors(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		const regions, size = 1000, 32
		h := mustAllocHost(t, d, regions*size)
		p := mustAlloc(t, d, regions*size)
		copy(h.Bytes(), randomBytes(rand.New(rand.NewPCG(5, 6)), regions*size))
		copies := make([]Copy, regions)
		for i := range copies {
			copies[i] = Copy{Src: h.Ptr().Add(int64(i * size)), Dst: p.Add(int64((regions - 1 - i) * size)), Bytes: size}
		}
		if err := cp.Copy(s, HostToDevice, copies); err != nil {
			t.Fatalf("Copy error = %v", err)
		}
		got := readBack(t, d, s, p, regions*size)
		for i := range regions {
			src := h.Bytes()[i*size : (i+1)*size]
			dst := got[(regions-1-i)*size : (regions-i)*size]
			if !bytes.Equal(src, dst) {
				t.Fatalf("region %d differs after a %d-descriptor kernel copy", i, regions)
			}
		}
	})
}

func TestRegisterHost(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		s := mustStream(t, d)
		arena := randomBytes(rand.New(rand.NewPCG(7, 8)), 1<<20)
		h, err := d.RegisterHost(arena)
		if err != nil {
			t.Fatalf("RegisterHost error = %v", err)
		}
		p := mustAlloc(t, d, 4096)
		off := int64(12345)
		if err := d.Memcpy(s, HostToDevice, []Copy{{Dst: p, Src: h.Ptr().Add(off), Bytes: 4096}}); err != nil {
			t.Fatalf("Memcpy from registered memory error = %v", err)
		}
		if got := readBack(t, d, s, p, 4096); !bytes.Equal(got, arena[off:off+4096]) {
			t.Errorf("copy from registered memory differs")
		}
		if err := h.Close(); err != nil {
			t.Errorf("HostMem.Close() error = %v", err)
		}
		err = d.Memcpy(s, HostToDevice, []Copy{{Dst: p, Src: h.Ptr(), Bytes: 16}})
		if err == nil {
			err = s.Synchronize()
		}
		if err == nil {
			t.Errorf("Memcpy from unregistered memory succeeded, want an error")
		}
	})
}

func TestEventsAndStreamOrder(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		a, b := mustStream(t, d), mustStream(t, d)
		start, end := mustEvent(t, d), mustEvent(t, d)
		if _, err := end.Since(start); err == nil {
			t.Errorf("Since on events never recorded succeeded, want an error")
		}
		const n = 8 << 20
		want := randomBytes(rand.New(rand.NewPCG(9, 10)), n)
		p, q := mustAlloc(t, d, n), mustAlloc(t, d, n)
		if err := start.Record(a); err != nil {
			t.Fatalf("Record error = %v", err)
		}
		if err := d.CopyHtoD(a, p, want); err != nil {
			t.Fatalf("CopyHtoD error = %v", err)
		}
		if err := end.Record(a); err != nil {
			t.Fatalf("Record error = %v", err)
		}
		// Stream b copies p to q only after a's copy finished.
		if err := b.WaitEvent(end); err != nil {
			t.Fatalf("WaitEvent error = %v", err)
		}
		if err := d.Memcpy(b, DeviceToDevice, []Copy{{Dst: q, Src: p, Bytes: n}}); err != nil {
			t.Fatalf("Memcpy d2d error = %v", err)
		}
		if got := readBack(t, d, b, q, n); !bytes.Equal(got, want) {
			t.Errorf("stream b did not see stream a's copy")
		}
		if err := end.Synchronize(); err != nil {
			t.Fatalf("Synchronize error = %v", err)
		}
		if el, err := end.Since(start); err != nil || el < 0 {
			t.Errorf("Since = %v, %v, want a non-negative duration", el, err)
		}
	})
}

func mustEvent(t *testing.T, d Device) Event {
	t.Helper()
	e, err := d.NewEvent()
	if err != nil {
		t.Fatalf("NewEvent error = %v", err)
	}
	t.Cleanup(func() { e.Destroy() })
	return e
}

func TestDeviceRejects(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		s := mustStream(t, d)
		p := mustAlloc(t, d, 4096)
		h := mustAllocHost(t, d, 4096)
		tests := []struct {
			name string
			op   func() error
		}{
			{"alloc zero", func() error { _, err := d.Alloc(0); return err }},
			{"alloc host negative", func() error { _, err := d.AllocHost(-1); return err }},
			{"register empty", func() error { _, err := d.RegisterHost(nil); return err }},
			{"h2d from device memory", func() error {
				return d.Memcpy(s, HostToDevice, []Copy{{Dst: p, Src: p, Bytes: 16}})
			}},
			{"d2h into device memory", func() error {
				return d.Memcpy(s, DeviceToHost, []Copy{{Dst: p, Src: p, Bytes: 16}})
			}},
			{"h2d past the pinned buffer", func() error {
				return d.Memcpy(s, HostToDevice, []Copy{{Dst: p, Src: h.Ptr().Add(4000), Bytes: 200}})
			}},
			{"kernel not in the module", func() error { _, err := d.Kernel("no_such_kernel"); return err }},
		}
		for _, tt := range tests {
			err := tt.op()
			if err == nil {
				err = s.Synchronize()
			}
			if err == nil {
				t.Errorf("%s: succeeded, want an error", tt.name)
			}
		}
	})
}

func TestHostSpace(t *testing.T) {
	s := newHostSpace()
	a := s.add(make([]byte, 100), false)
	b := s.add(make([]byte, 10), true)
	tests := []struct {
		name    string
		p       DevPtr
		n       int64
		wantErr bool
	}{
		{"start", a, 100, false},
		{"inside", a + 50, 50, false},
		{"past the end", a + 50, 51, true},
		{"before everything", a - 1, 1, true},
		{"in the gap", a + 100, 1, true},
		{"second range", b + 9, 1, false},
		{"negative", a, -1, true},
	}
	for _, tt := range tests {
		_, _, err := s.slice(tt.p, tt.n)
		if (err != nil) != tt.wantErr {
			t.Errorf("slice(%s) error = %v, want error %v", tt.name, err, tt.wantErr)
		}
	}
	if err := s.remove(a, true); err == nil {
		t.Errorf("remove(device range as host) succeeded, want an error")
	}
	if err := s.remove(a+1, false); err == nil {
		t.Errorf("remove(inside a range) succeeded, want an error")
	}
	if err := s.remove(a, false); err != nil {
		t.Errorf("remove(a) error = %v", err)
	}
	if got := s.mapped(); got != 1 {
		t.Errorf("mapped() = %d, want 1", got)
	}
}

func TestDescsRoundTrip(t *testing.T) {
	in := []Copy{{Src: 1, Dst: 2, Bytes: 3}, {Src: 1 << 60, Dst: 1<<47 + 5, Bytes: 1 << 40}}
	b := make([]byte, len(in)*DescBytes)
	EncodeDescs(b, in)
	out := DecodeDescs(b, len(in))
	for i := range in {
		if out[i] != in[i] {
			t.Errorf("DecodeDescs(EncodeDescs(%v))[%d] = %v", in[i], i, out[i])
		}
	}
}

func TestEncodeChunks(t *testing.T) {
	in := []Copy{{Src: 0, Dst: 1000, Bytes: 250}, {Src: 5, Dst: 6, Bytes: 0}, {Src: 9, Dst: 9, Bytes: 100}}
	want := []Copy{
		{Src: 0, Dst: 1000, Bytes: 100},
		{Src: 100, Dst: 1100, Bytes: 100},
		{Src: 200, Dst: 1200, Bytes: 50},
		{Src: 9, Dst: 9, Bytes: 100},
	}
	n := countChunks(in, 100)
	if n != len(want) {
		t.Fatalf("countChunks(%v, 100) = %d, want %d", in, n, len(want))
	}
	b := make([]byte, n*DescBytes)
	encodeChunks(b, HostToDevice, in, nil, 100)
	if diff := cmp.Diff(want, DecodeDescs(b, n)); diff != "" {
		t.Errorf("encodeChunks(%v, 100) mismatch (-want +got):\n%s", in, diff)
	}
}

// TestCopierRingReuse queues more kernel copies than the descriptor ring
// has buffers, of growing sizes, without waiting in between: each launch
// must read its own descriptors, not those a later launch wrote.
func TestCopierRingReuse(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		const launches, size = 3*descRingSlots + 1, 48
		total := launches * (launches + 1) / 2 * minDescs
		h := mustAllocHost(t, d, int64(total*size))
		p := mustAlloc(t, d, int64(total*size))
		copy(h.Bytes(), randomBytes(rand.New(rand.NewPCG(9, 10)), total*size))
		region := 0
		for l := 1; l <= launches; l++ {
			copies := make([]Copy, l*minDescs)
			for i := range copies {
				off := int64((region + i) * size)
				copies[i] = Copy{Src: h.Ptr().Add(off), Dst: p.Add(off), Bytes: size}
			}
			region += len(copies)
			if err := cp.Copy(s, HostToDevice, copies); err != nil {
				t.Fatalf("Copy (launch %d) error = %v", l, err)
			}
		}
		if got := readBack(t, d, s, p, total*size); !bytes.Equal(got, h.Bytes()) {
			t.Errorf("%d kernel copies through a %d-buffer ring: device bytes differ from the source", launches, descRingSlots)
		}
	})
}

func TestParseCopyMode(t *testing.T) {
	for _, s := range []string{"memcpy", "KERNEL", " batch "} {
		if _, err := ParseCopyMode(s); err != nil {
			t.Errorf("ParseCopyMode(%q) error = %v", s, err)
		}
	}
	if _, err := ParseCopyMode("dma"); err == nil {
		t.Errorf("ParseCopyMode(dma) succeeded, want an error")
	}
}

func TestEmbeddedPTX(t *testing.T) {
	t.Setenv(PTXEnv, "")
	ptx, err := ModulePTX()
	if err != nil {
		t.Fatalf("ModulePTX() error = %v", err)
	}
	for _, want := range []string{".version 7.0", ".target sm_75", ".entry " + KernelScatter, ".entry " + KernelGather} {
		if !bytes.Contains(ptx, []byte(want)) {
			t.Errorf("embedded PTX lacks %q", want)
		}
	}
	t.Setenv(PTXEnv, "/no/such/file.ptx")
	if _, err := ModulePTX(); err == nil {
		t.Errorf("ModulePTX() with %s naming a missing file succeeded, want an error", PTXEnv)
	}
}

func FuzzParseCopyMode(f *testing.F) {
	for _, s := range []string{"memcpy", "kernel", "batch", "Batch ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseCopyMode(s)
		if err != nil {
			return
		}
		if again, err := ParseCopyMode(string(m)); err != nil || again != m {
			t.Fatalf("ParseCopyMode(%q) = %q, which does not parse back: %q, %v", s, m, again, err)
		}
	})
}
