package transfer

import (
	"testing"

	"github.com/kvctl/kvctl/cuda"
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
