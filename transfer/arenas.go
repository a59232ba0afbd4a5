package transfer

import (
	"reflect"
	"sync"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// Arenas is a registry of pools' arenas registered with devices for
// direct transfers: one registration per pool and device, shared by the
// loaders and savers that name the registry (Options.Arenas; the driver
// refuses to register the same memory twice) and released with the last
// of them. It is safe for concurrent use.
type Arenas struct {
	mu   sync.Mutex
	open map[arenaKey]*arenaMap
}

type arenaKey struct {
	dev cuda.Device
	src pool.ArenaHolder
}

// NewArenas returns an empty registry.
func NewArenas() *Arenas { return &Arenas{open: map[arenaKey]*arenaMap{}} }

// DefaultArenas is the registry of the loaders and savers whose Options
// name none: every direct loader and saver of one pool and device in the
// process shares its registration.
var DefaultArenas = NewArenas()

// acquire returns the arena map of dev and src, registering src's arenas
// when it is the first user; each call needs a close of the map. A pool
// or device of a type that is not comparable gets a map of its own.
func (a *Arenas) acquire(dev cuda.Device, src pool.ArenaHolder) (*arenaMap, error) {
	if !reflect.TypeOf(src).Comparable() || !reflect.TypeOf(dev).Comparable() {
		m, err := newArenaMap(dev, src)
		if m != nil {
			m.users = 1
		}
		return m, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	k := arenaKey{dev, src}
	if m := a.open[k]; m != nil {
		m.users++
		return m, nil
	}
	m, err := newArenaMap(dev, src)
	if err != nil {
		return nil, err
	}
	m.reg, m.users = a, 1
	a.open[k] = m
	return m, nil
}

// release ends one user's use of m and says whether it was the last
// (whose close unregisters the arenas); a nil registry holds private maps.
func (a *Arenas) release(m *arenaMap) bool {
	if a == nil {
		m.users--
		return m.users <= 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	m.users--
	if m.users > 0 {
		return false
	}
	delete(a.open, arenaKey{m.dev, m.src})
	return true
}

// size is the number of registrations open.
func (a *Arenas) size() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.open)
}
