package transfer

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"unsafe"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// ArenaStore is what direct loads need of a pool: values in host arenas
// that a device can map (pool.ArenaHolder), looked up in place
// (pool.Viewer). pool/mem's Store is one.
type ArenaStore interface {
	pool.ArenaHolder
	pool.Viewer
}

// ArenaWriter is what direct saves need of a pool: values placed in its
// arenas (pool.ArenaHolder) for the caller to write in place before
// committing them (pool.Reserver, Mooncake's PutStart and PutEnd).
// pool/mem's Store is one.
type ArenaWriter interface {
	pool.ArenaHolder
	pool.Reserver
}

// arenaMap registers a pool's arenas with the device (mapped, pinned) and
// translates viewed bytes to device addresses. Arenas allocated after the
// first registration are registered the first time a view lands in one.
type arenaMap struct {
	dev cuda.Device
	src pool.ArenaHolder
	// views looks values up in place (direct loads); writer places them
	// (direct saves).
	views  ArenaStore
	writer ArenaWriter
	// reg is the registry the map is open in (nil: a map of its own),
	// users the loaders and savers sharing it.
	reg   *Arenas
	users int

	mu   sync.RWMutex
	regs []arenaReg // sorted by addr
	// unpinned tells src the map no longer pins its arenas (nil: it was
	// not told they were).
	unpinned func()
}

type arenaReg struct {
	addr uintptr
	n    int
	mem  *cuda.HostMem
}

// newArenaMap registers src's arenas with dev.
func newArenaMap(dev cuda.Device, src pool.ArenaHolder) (*arenaMap, error) {
	m := &arenaMap{dev: dev, src: src}
	m.views, _ = src.(ArenaStore)
	m.writer, _ = src.(ArenaWriter)
	if obs, ok := src.(pool.ArenaPinObserver); ok && !dev.Info().Emulated {
		m.unpinned = obs.ArenasPinned()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.refreshLocked(); err != nil {
		m.closeLocked()
		return nil, err
	}
	return m, nil
}

func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// refreshLocked registers the arenas not registered yet.
func (m *arenaMap) refreshLocked() error {
	for _, a := range m.src.Arenas() {
		if len(a) == 0 {
			continue
		}
		if _, ok := m.lookupLocked(addrOf(a), len(a)); ok {
			continue
		}
		if err := m.registerLocked(a); err != nil {
			return err
		}
	}
	return nil
}

// registerHoldingLocked registers the arena that holds the n bytes at
// addr, if it is not registered yet, and no other: an arena a pool opened
// ahead of its values (pool/mem maps such an arena's pages in the
// background while a GPU pins the others) waits until values land in it,
// so that its registration does not map the pages the pool is mapping.
func (m *arenaMap) registerHoldingLocked(addr uintptr, n int) error {
	for _, a := range m.src.Arenas() {
		start := addrOf(a)
		if len(a) == 0 || addr < start || addr+uintptr(n) > start+uintptr(len(a)) {
			continue
		}
		if _, ok := m.lookupLocked(start, len(a)); ok {
			return nil
		}
		return m.registerLocked(a)
	}
	return nil
}

// registerLocked registers arena a with the device.
func (m *arenaMap) registerLocked(a []byte) error {
	mem, err := m.dev.RegisterHost(a)
	if err != nil {
		return fmt.Errorf("direct mode: registering a %d-byte pool arena: %w", len(a), err)
	}
	r := arenaReg{addr: addrOf(a), n: len(a), mem: mem}
	i := sort.Search(len(m.regs), func(i int) bool { return m.regs[i].addr > r.addr })
	m.regs = append(m.regs, arenaReg{})
	copy(m.regs[i+1:], m.regs[i:])
	m.regs[i] = r
	return nil
}

func (m *arenaMap) lookupLocked(addr uintptr, n int) (cuda.DevPtr, bool) {
	i := sort.Search(len(m.regs), func(i int) bool { return m.regs[i].addr > addr }) - 1
	if i < 0 || addr+uintptr(n) > m.regs[i].addr+uintptr(m.regs[i].n) {
		return 0, false
	}
	return m.regs[i].mem.Ptr().Add(int64(addr - m.regs[i].addr)), true
}

// ptrs sets out[i] to the device address of views[i] for every view that
// is not nil (0 for the others), under one read lock.
func (m *arenaMap) ptrs(views [][]byte, out []cuda.DevPtr) error {
	m.mu.RLock()
	missed := false
	for i, b := range views {
		out[i] = 0
		if b == nil {
			continue
		}
		p, ok := m.lookupLocked(addrOf(b), len(b))
		if !ok {
			missed = true
			continue
		}
		out[i] = p
	}
	m.mu.RUnlock()
	if !missed {
		return nil
	}
	for i, b := range views {
		if b != nil && out[i] == 0 {
			p, err := m.ptr(b)
			if err != nil {
				return err
			}
			out[i] = p
		}
	}
	return nil
}

// ptr returns the device address of viewed bytes b.
func (m *arenaMap) ptr(b []byte) (cuda.DevPtr, error) {
	addr := addrOf(b)
	m.mu.RLock()
	p, ok := m.lookupLocked(addr, len(b))
	m.mu.RUnlock()
	if ok {
		return p, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.registerHoldingLocked(addr, len(b)); err != nil {
		return 0, err
	}
	if p, ok := m.lookupLocked(addr, len(b)); ok {
		return p, nil
	}
	return 0, fmt.Errorf("direct mode: a viewed value of %d bytes lies in no arena of the pool", len(b))
}

// close ends one user's use of the map and unregisters every arena when
// it was the last.
func (m *arenaMap) close() error {
	if m == nil {
		return nil
	}
	if !m.reg.release(m) {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closeLocked()
}

func (m *arenaMap) closeLocked() error {
	var errs []error
	for _, r := range m.regs {
		errs = append(errs, r.mem.Close())
	}
	m.regs = nil
	if m.unpinned != nil {
		m.unpinned()
	}
	return errors.Join(errs...)
}
