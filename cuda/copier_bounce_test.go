package cuda

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
)

// fillAheadLoad is one load of TestKernelFillAhead: its host source, the
// device pages it scatters to and the order it scatters them in.
type fillAheadLoad struct {
	n    int
	src  []byte
	dev  DevPtr
	perm []int
}

// TestKernelFillAhead queues loads of runs long enough for the bounce
// buffers back to back with fill-ahead on (each from host memory of its
// own, final when queued), growing the buffers on the way, with a save
// through a bounce buffer in between, and checks every byte landed: a
// fill that overtook the kernel still reading its buffer, or a kernel
// that did not wait for its fill, shows as a wrong region.
func TestKernelFillAhead(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		cp.SetFillAhead(true)
		const size = 64 << 10
		r := rand.New(rand.NewPCG(21, 22))
		var loads []fillAheadLoad
		for i, n := range []int{16, 48, 24, 48, 32, 16} { // runs of 1 to 3 MiB
			l := fillAheadLoad{n: n, src: randomBytes(r, (2*n+1)*size), dev: mustAlloc(t, d, int64(2*n*size)), perm: r.Perm(2 * n)}
			host := mustAllocHost(t, d, int64(len(l.src)))
			copy(host.Bytes(), l.src)
			if err := cp.Copy(s, HostToDevice, runCopies(HostToDevice, host.Ptr(), l.dev, n, size, l.perm)); err != nil {
				t.Fatalf("load %d: kernel Copy h2d error = %v", i, err)
			}
			loads = append(loads, l)
			if i == 2 { // a save between loads uses a bounce buffer on the caller's stream
				out := mustAllocHost(t, d, int64(len(loads[0].src)))
				if err := cp.Copy(s, DeviceToHost, runCopies(DeviceToHost, out.Ptr(), loads[0].dev, loads[0].n, size, loads[0].perm)); err != nil {
					t.Fatalf("save: kernel Copy d2h error = %v", err)
				}
			}
		}
		for i, l := range loads {
			got := readBack(t, d, s, l.dev, 2*l.n*size)
			for k, p := range l.perm {
				h := k * size
				if k >= l.n {
					h += size
				}
				if !bytes.Equal(got[p*size:(p+1)*size], l.src[h:h+size]) {
					t.Fatalf("load %d: region %d (device slot %d) differs from its source", i, k, p)
				}
			}
		}
	})
}

// TestFillAheadWaitsForItsBuffer holds the caller's stream back (host
// emulation) while three equal loads are queued with fill-ahead on: the
// third uses the first's bounce buffer again, so its fill must wait for
// the first load's kernel, held back behind the gate. A fill that did
// not wait would overwrite the first load's runs before its kernel read
// them.
func TestFillAheadWaitsForItsBuffer(t *testing.T) {
	d := newHostDevice("")
	t.Cleanup(func() { d.Close() })
	cp, s := mustKernelCopier(t, d)
	cp.SetFillAhead(true)
	gate, release := heldStream(t, d)
	if err := s.WaitEvent(gate); err != nil {
		t.Fatal(err)
	}
	const n, size = 16, 64 << 10 // two runs of 1 MiB a load: no buffer grows twice
	r := rand.New(rand.NewPCG(23, 24))
	var loads []fillAheadLoad
	for i := range 3 {
		l := fillAheadLoad{n: n, src: randomBytes(r, (2*n+1)*size), dev: mustAlloc(t, d, int64(2*n*size)), perm: r.Perm(2 * n)}
		host := mustAllocHost(t, d, int64(len(l.src)))
		copy(host.Bytes(), l.src)
		if err := cp.Copy(s, HostToDevice, runCopies(HostToDevice, host.Ptr(), l.dev, n, size, l.perm)); err != nil {
			t.Fatalf("load %d: kernel Copy h2d error = %v", i, err)
		}
		loads = append(loads, l)
	}
	release()
	for i, l := range loads {
		got := readBack(t, d, s, l.dev, 2*l.n*size)
		for k, p := range l.perm {
			h := k * size
			if k >= l.n {
				h += size
			}
			if !bytes.Equal(got[p*size:(p+1)*size], l.src[h:h+size]) {
				t.Fatalf("load %d: region %d (device slot %d) differs from its source", i, k, p)
			}
		}
	}
}

// heldStream returns an event of a host emulation stream that completes
// only once release is called (or the test ends).
func heldStream(t *testing.T, d Device) (Event, func()) {
	t.Helper()
	st, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	hs := st.(*hostStream)
	open := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(open) }) }
	t.Cleanup(func() { release(); st.Synchronize(); st.Destroy() })
	if err := hs.enqueue(func() error { <-open; return nil }); err != nil {
		t.Fatal(err)
	}
	ev, err := d.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Record(st); err != nil {
		t.Fatal(err)
	}
	return ev, release
}
