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

// ArenaStore is a pool whose values live in host memory arenas that a
// device can map, read in place: what direct mode needs (pool/mem's Store
// is one).
type ArenaStore interface {
	// Arenas returns the arenas allocated so far; values returned by View
	// lie inside them, and more arenas may appear later.
	Arenas() [][]byte
	// View returns key's bytes in place and a release func to call once
	// done with them; code is pool.OK or why not.
	View(key string) (b []byte, release func(), code pool.Code)
}

// arenaMap registers a pool's arenas with the device (mapped, pinned) and
// translates viewed bytes to device addresses. Arenas allocated after the
// first registration are registered the first time a view lands in one.
type arenaMap struct {
	dev   cuda.Device
	store ArenaStore

	mu   sync.RWMutex
	regs []arenaReg // sorted by addr
}

type arenaReg struct {
	addr uintptr
	n    int
	mem  *cuda.HostMem
}

func newArenaMap(dev cuda.Device, p pool.Store) (*arenaMap, error) {
	store, ok := p.(ArenaStore)
	if !ok {
		return nil, fmt.Errorf("direct mode: pool %T does not expose its arenas (want an embedded mem:// pool)", p)
	}
	m := &arenaMap{dev: dev, store: store}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.refreshLocked(); err != nil {
		m.closeLocked()
		return nil, err
	}
	return m, nil
}

func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// refreshLocked registers arenas not registered yet.
func (m *arenaMap) refreshLocked() error {
	for _, a := range m.store.Arenas() {
		if len(a) == 0 {
			continue
		}
		if _, ok := m.lookupLocked(addrOf(a), len(a)); ok {
			continue
		}
		mem, err := m.dev.RegisterHost(a)
		if err != nil {
			return fmt.Errorf("direct mode: registering a %d-byte pool arena: %w", len(a), err)
		}
		r := arenaReg{addr: addrOf(a), n: len(a), mem: mem}
		i := sort.Search(len(m.regs), func(i int) bool { return m.regs[i].addr > r.addr })
		m.regs = append(m.regs, arenaReg{})
		copy(m.regs[i+1:], m.regs[i:])
		m.regs[i] = r
	}
	return nil
}

func (m *arenaMap) lookupLocked(addr uintptr, n int) (cuda.DevPtr, bool) {
	i := sort.Search(len(m.regs), func(i int) bool { return m.regs[i].addr > addr }) - 1
	if i < 0 || addr+uintptr(n) > m.regs[i].addr+uintptr(m.regs[i].n) {
		return 0, false
	}
	return m.regs[i].mem.Ptr().Add(int64(addr - m.regs[i].addr)), true
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
	if err := m.refreshLocked(); err != nil {
		return 0, err
	}
	if p, ok := m.lookupLocked(addr, len(b)); ok {
		return p, nil
	}
	return 0, fmt.Errorf("direct mode: a viewed value of %d bytes lies in no arena of the pool", len(b))
}

// close unregisters every arena.
func (m *arenaMap) close() error {
	if m == nil {
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
	return errors.Join(errs...)
}
