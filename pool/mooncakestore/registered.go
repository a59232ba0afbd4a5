package mooncakestore

import (
	"fmt"
	"sync"
	"unsafe"
)

// registered is the memory callers registered with the client through
// RegisterBuffer: values whose bytes lie inside it travel straight between
// it and the store (get_into, batch_put_from), without staging.
type registered struct {
	mu      sync.RWMutex
	regions map[uintptr]uintptr // base -> end
	// closed is set when the Store closed: the client is gone, and an
	// unregister after it has nothing to undo.
	closed bool
}

func newRegistered() *registered { return &registered{regions: map[uintptr]uintptr{}} }

// span is b's address range; an empty b has none.
func span(b []byte) (base, end uintptr) {
	if len(b) == 0 {
		return 0, 0
	}
	base = uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return base, base + uintptr(len(b))
}

// close marks the client gone; destroying it drops its registrations.
func (r *registered) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	clear(r.regions)
}

// holds reports whether every byte of b lies in one registered region.
func (r *registered) holds(b []byte) bool {
	base, end := span(b)
	if base == 0 {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for rb, re := range r.regions {
		if base >= rb && end <= re {
			return true
		}
	}
	return false
}

// RegisterBuffer registers b with the client
// (mooncake_store_register_buffer), so that Get into and Put from slices
// of it transfer in place, one copy less each way than through staging
// (pool.BufferRegistrar). b must stay allocated until unregister
// (mooncake_store_unregister_buffer) is called, and no call may use it
// while unregister runs.
func (s *Store) RegisterBuffer(b []byte) (unregister func() error, err error) {
	base, end := span(b)
	if base == 0 {
		return nil, fmt.Errorf("mooncake store: registering a buffer: it is empty")
	}
	s.regs.mu.Lock()
	defer s.regs.mu.Unlock()
	if s.regs.closed {
		return nil, fmt.Errorf("mooncake store: registering a buffer: the store is closed")
	}
	if _, dup := s.regs.regions[base]; dup {
		return nil, fmt.Errorf("mooncake store: registering %d bytes at %#x: already registered", len(b), base)
	}
	if rc := s.c.registerBuffer(b); rc != 0 {
		return nil, fmt.Errorf("mooncake store: registering %d bytes: mooncake_store_register_buffer: %v", len(b), codeOf(int64(rc)))
	}
	s.regs.regions[base] = end
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() { err = s.unregister(b, base) })
		return err
	}, nil
}

func (s *Store) unregister(b []byte, base uintptr) error {
	s.regs.mu.Lock()
	defer s.regs.mu.Unlock()
	if s.regs.closed {
		return nil
	}
	delete(s.regs.regions, base)
	if rc := s.c.unregisterBuffer(b); rc != 0 {
		return fmt.Errorf("mooncake store: unregistering %d bytes: mooncake_store_unregister_buffer: %v", len(b), codeOf(int64(rc)))
	}
	return nil
}
