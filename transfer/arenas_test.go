package transfer

import (
	"context"
	"fmt"
	"testing"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// TestArenasShareOnePerPoolAndDevice opens direct loaders and savers of
// one pool in two registries: those of one registry share one
// registration, those of another have their own, and a registry is
// empty once its last user closed.
func TestArenasShareOnePerPoolAndDevice(t *testing.T) {
	store := newSmallMemPool(t, 8<<10)
	f := newFixture(t, 8, newMapStore())
	a, b := NewArenas(), NewArenas()
	o := Options{Device: f.dev, Pool: store, Pools: f.pools, Direct: true, Batch: 4, Mode: cuda.ModeKernel, Arenas: a}
	l, err := NewLoader(o)
	if err != nil {
		t.Fatalf("NewLoader(direct, registry a) error = %v", err)
	}
	s, err := NewSaver(o)
	if err != nil {
		t.Fatalf("NewSaver(direct, registry a) error = %v", err)
	}
	o.Arenas = b
	other, err := NewLoader(o)
	if err != nil {
		t.Fatalf("NewLoader(direct, registry b) error = %v", err)
	}
	if l.arenas != s.lane.arenas || l.arenas == other.arenas {
		t.Errorf("arena maps: loader a %p, saver a %p, loader b %p; want a's shared and b's apart", l.arenas, s.lane.arenas, other.arenas)
	}
	if got := a.size(); got != 1 {
		t.Errorf("registry a holds %d registrations, want 1", got)
	}
	for _, c := range []interface{ Close() error }{l, s, other} {
		if err := c.Close(); err != nil {
			t.Fatalf("Close error = %v", err)
		}
	}
	if a.size() != 0 || b.size() != 0 {
		t.Errorf("registries after closing hold %d and %d registrations, want none", a.size(), b.size())
	}
}

// gpuLike is host emulation that says it is a GPU, as one whose
// registrations pin the memory they register.
type gpuLike struct{ cuda.Device }

func (d gpuLike) Info() cuda.Info {
	info := d.Device.Info()
	info.Emulated = false
	return info
}

// pinWatch is an embedded pool that counts the callers pinning its arenas.
type pinWatch struct {
	*mem.Store
	pinning int
}

func (w *pinWatch) ArenasPinned() func() {
	w.pinning++
	return func() { w.pinning-- }
}

// A direct loader on a device whose registrations pin tells the pool its
// arenas are pinned (so that it does not map them ahead too) until it
// closes; on host emulation, which pins nothing, it does not. The test's
// own device is host emulation, or a GPU under KVCTL_TEST_DEVICE, which
// pins.
func TestDirectRegistrationTellsThePoolItPins(t *testing.T) {
	for _, tt := range []struct {
		name string
		gpu  bool
	}{{"the test's device", false}, {"a device that pins", true}} {
		f := newFixture(t, 8, newMapStore())
		dev := f.dev
		if tt.gpu {
			dev = gpuLike{f.dev}
		}
		w := &pinWatch{Store: newSmallMemPool(t, 8<<10)}
		l, err := NewLoader(Options{Device: dev, Pool: w, Pools: f.pools, Direct: true, Batch: 4, Mode: cuda.ModeKernel, Arenas: NewArenas()})
		if err != nil {
			t.Fatalf("%s: NewLoader(direct) error = %v", tt.name, err)
		}
		want := 1
		if dev.Info().Emulated {
			want = 0
		}
		if w.pinning != want {
			t.Errorf("%s (emulated: %v): %d callers pin the arenas while the loader is open, want %d", tt.name, dev.Info().Emulated, w.pinning, want)
		}
		if err := l.Close(); err != nil {
			t.Fatalf("%s: Close error = %v", tt.name, err)
		}
		if w.pinning != 0 {
			t.Errorf("%s: %d callers pin the arenas after the loader closed, want 0", tt.name, w.pinning)
		}
	}
}

// countingGPU is a device that pins (gpuLike) and counts its
// registrations.
type countingGPU struct {
	gpuLike
	registered int
}

func (d *countingGPU) RegisterHost(b []byte) (*cuda.HostMem, error) {
	d.registered++
	return d.gpuLike.RegisterHost(b)
}

// A direct map on a device that pins registers the arena a value lands
// in, not the one the pool opened ahead of its values (whose pages the
// pool maps meanwhile); that one is registered once a value lands there.
func TestArenaOpenedAheadRegisteredWhenUsed(t *testing.T) {
	store, err := mem.New(mem.Options{Capacity: 8 << 20, Segments: 1, ArenaSize: 1 << 20, Eviction: mem.EvictManual})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() }) // after the reservations' commits below
	dev := &countingGPU{gpuLike: gpuLike{testDevice(t)}}
	m, err := newArenaMap(dev, store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.close() })
	reserve := func(round int) []byte {
		t.Helper()
		items, dsts, codes := make([]pool.PutItem, 16), make([][]byte, 16), make([]pool.Code, 16) // 1 MiB: an arena
		for i := range items {
			items[i] = pool.PutItem{Key: fmt.Sprint("r", round, "k", i), Size: 64 << 10}
		}
		r, err := store.Reserve(context.Background(), items, dsts, codes)
		if err != nil || codes[0] != pool.OK {
			t.Fatalf("round %d: Reserve = %v, %v", round, codes[0], err)
		}
		t.Cleanup(r.Commit)
		return dsts[0]
	}
	first := reserve(0)
	if _, err := m.ptr(first); err != nil {
		t.Fatal(err)
	}
	if n := len(store.Arenas()); n != 2 || dev.registered != 1 {
		t.Errorf("after a value in the first arena: %d arenas, %d registered; want 2 (one ahead), 1", n, dev.registered)
	}
	second := reserve(1)
	if _, err := m.ptr(second); err != nil {
		t.Fatal(err)
	}
	if dev.registered != 2 {
		t.Errorf("after a value in the arena opened ahead: %d registered, want 2", dev.registered)
	}
}
