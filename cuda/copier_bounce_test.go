package cuda

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// fillAheadLoad is one load (or save) of the bounce buffer tests: its
// host source (or the device's bytes), the device pages it scatters to
// (gathers from) and their order.
type fillAheadLoad struct {
	n    int
	src  []byte
	dev  DevPtr
	perm []int
}

// newFillAheadLoad is a load of two runs of n regions of size bytes each
// (a gap between them) to scattered places on d.
func newFillAheadLoad(t *testing.T, d Device, r *rand.Rand, n, size int) fillAheadLoad {
	return fillAheadLoad{n: n, src: randomBytes(r, (2*n+1)*size), dev: mustAlloc(t, d, int64(2*n*size)), perm: r.Perm(2 * n)}
}

// queueLoad queues load l (number i) with cp on s, from pinned memory of
// its own.
func queueLoad(t *testing.T, d Device, cp *Copier, s Stream, i int, l fillAheadLoad, size int) {
	t.Helper()
	host := mustAllocHost(t, d, int64(len(l.src)))
	copy(host.Bytes(), l.src)
	if err := cp.Copy(s, HostToDevice, runCopies(HostToDevice, host.Ptr(), l.dev, l.n, int64(size), l.perm)); err != nil {
		t.Fatalf("load %d: kernel Copy h2d error = %v", i, err)
	}
}

// queueSave writes l.src to l.dev and queues, with cp on s, a save of
// the device pages (save i) into new pinned memory, which it returns.
func queueSave(t *testing.T, d Device, cp *Copier, s Stream, i int, l fillAheadLoad, size int) *HostMem {
	t.Helper()
	if err := d.CopyHtoD(s, l.dev, l.src); err != nil {
		t.Fatal(err)
	}
	out := mustAllocHost(t, d, int64((2*l.n+1)*size))
	if err := cp.Copy(s, DeviceToHost, runCopies(DeviceToHost, out.Ptr(), l.dev, l.n, int64(size), l.perm)); err != nil {
		t.Fatalf("save %d: kernel Copy d2h error = %v", i, err)
	}
	return out
}

// checkLanded reads back the device pages of load i and compares each
// region with its source.
func checkLanded(t *testing.T, d Device, s Stream, i int, l fillAheadLoad, size int) {
	t.Helper()
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

// TestKernelFillAhead queues loads of runs long enough for the bounce
// buffers back to back with fill-ahead on (each from host memory of its
// own, final when queued), growing the buffers on the way, with a save
// through a bounce buffer in between, and checks every byte landed: a
// fill that overtook the kernel still reading its buffer, or a kernel
// that did not wait for its fill, shows as a wrong region.
func TestKernelFillAhead(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		cp.SetOverlap(true)
		const size = 64 << 10
		r := rand.New(rand.NewPCG(21, 22))
		var loads []fillAheadLoad
		for i, n := range []int{16, 48, 24, 48, 32, 16} { // runs of 1 to 3 MiB
			l := newFillAheadLoad(t, d, r, n, size)
			queueLoad(t, d, cp, s, i, l, size)
			loads = append(loads, l)
			if i == 2 { // a save between loads uses a bounce buffer on the caller's stream
				out := mustAllocHost(t, d, int64(len(loads[0].src)))
				if err := cp.Copy(s, DeviceToHost, runCopies(DeviceToHost, out.Ptr(), loads[0].dev, loads[0].n, size, loads[0].perm)); err != nil {
					t.Fatalf("save: kernel Copy d2h error = %v", err)
				}
			}
		}
		for i, l := range loads {
			checkLanded(t, d, s, i, l, size)
		}
	})
}

// TestKernelOverlapSaves queues saves of runs long enough for the
// bounce buffers back to back with overlap on, each into host memory of
// its own, and checks every byte once an event recorded with Record after
// the last one completed, without synchronizing the stream: Record must
// follow the runs copied out beside the stream.
func TestKernelOverlapSaves(t *testing.T) {
	eachDevice(t, func(t *testing.T, d Device) {
		cp, s := mustKernelCopier(t, d)
		cp.SetOverlap(true)
		const size = 64 << 10
		r := rand.New(rand.NewPCG(25, 26))
		type save struct {
			l   fillAheadLoad
			out *HostMem
		}
		var saves []save
		for i, n := range []int{16, 48, 24, 48, 16} {
			l := newFillAheadLoad(t, d, r, n, size)
			l.src = l.src[:2*n*size]
			saves = append(saves, save{l, queueSave(t, d, cp, s, i, l, size)})
		}
		ev, err := d.NewEvent()
		if err != nil {
			t.Fatal(err)
		}
		if err := cp.Record(ev, s); err != nil {
			t.Fatalf("Record error = %v", err)
		}
		if err := ev.Synchronize(); err != nil {
			t.Fatalf("event error = %v", err)
		}
		for i, sv := range saves {
			checkSaved(t, i, sv.out.Bytes(), sv.l, size)
		}
		if err := cp.Synchronize(s); err != nil {
			t.Fatalf("Synchronize error = %v", err)
		}
	})
}

// checkSaved checks that save i copied device slot perm[k] of l.dev (l.src
// there) to region k of out (after the gap from region n on).
func checkSaved(t *testing.T, i int, out []byte, l fillAheadLoad, size int) {
	t.Helper()
	for k, p := range l.perm {
		h := k * size
		if k >= l.n {
			h += size
		}
		if !bytes.Equal(out[h:h+size], l.src[p*size:(p+1)*size]) {
			t.Fatalf("save %d: region %d (device slot %d) differs from the device's bytes", i, k, p)
		}
	}
}

// TestOverlapSaveWaitsForItsBuffer holds the ahead stream back (host
// emulation) while three equal saves are queued with overlap on: the
// third gathers into the first's bounce buffer again, so its kernel must
// wait for the first save's runs, held back behind the gate, to be
// copied out. A kernel that did not wait would overwrite them first.
func TestOverlapSaveWaitsForItsBuffer(t *testing.T) {
	d := newHostDevice("")
	t.Cleanup(func() { d.Close() })
	cp, s := mustKernelCopier(t, d)
	cp.SetOverlap(true)
	ahead, err := cp.bounces.aheadStream()
	if err != nil {
		t.Fatal(err)
	}
	release := holdStream(t, ahead)
	const n, size = 16, 64 << 10
	r := rand.New(rand.NewPCG(27, 28))
	var saves []fillAheadLoad
	var outs []*HostMem
	for i := range 3 {
		l := newFillAheadLoad(t, d, r, n, size)
		l.src = l.src[:2*n*size]
		saves, outs = append(saves, l), append(outs, queueSave(t, d, cp, s, i, l, size))
	}
	if ranEarly(t, d, s) {
		t.Error("the third save's kernel ran while the first save's runs in its bounce buffer were not copied out")
	}
	release()
	if err := cp.Synchronize(s); err != nil {
		t.Fatalf("Synchronize error = %v", err)
	}
	for i, l := range saves {
		checkSaved(t, i, outs[i].Bytes(), l, size)
	}
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
	cp.SetOverlap(true)
	gate, release := heldStream(t, d)
	if err := s.WaitEvent(gate); err != nil {
		t.Fatal(err)
	}
	const n, size = 16, 64 << 10 // two runs of 1 MiB a load: no buffer grows twice
	r := rand.New(rand.NewPCG(23, 24))
	var loads []fillAheadLoad
	for i := range 3 {
		l := newFillAheadLoad(t, d, r, n, size)
		queueLoad(t, d, cp, s, i, l, size)
		loads = append(loads, l)
	}
	if ranEarly(t, d, cp.bounces.ahead) {
		t.Error("the third load's runs were copied into the bounce buffer the first load's kernel had not read yet")
	}
	release()
	for i, l := range loads {
		checkLanded(t, d, s, i, l, size)
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
	t.Cleanup(func() { st.Synchronize(); st.Destroy() })
	release := holdStream(t, st) // its cleanup runs first
	ev, err := d.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Record(st); err != nil {
		t.Fatal(err)
	}
	return ev, release
}

// ranEarly says whether the work queued on s so far completes within
// 100 ms.
func ranEarly(t *testing.T, d Device, s Stream) bool {
	t.Helper()
	ev, err := d.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Record(s); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { ev.Synchronize(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(100 * time.Millisecond):
		return false
	}
}

// holdStream queues on host emulation stream st an operation that ends
// only once release is called (or the test ends).
func holdStream(t *testing.T, st Stream) (release func()) {
	t.Helper()
	open := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(open) }) }
	t.Cleanup(release)
	if err := st.(*hostStream).enqueue(func() error { <-open; return nil }); err != nil {
		t.Fatal(err)
	}
	return release
}
