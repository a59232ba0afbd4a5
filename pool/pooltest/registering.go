package pooltest

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	"github.com/kvctl/kvctl/pool"
)

// Registering wraps a store with buffer registrations
// (pool.BufferRegistrar, as a Mooncake Store's register_buffer) for tests
// of callers that register their memory: it counts the values Put and
// the buffers Get were handed that lay inside a registered buffer and
// those that did not. Only pool.Store's methods of the wrapped store show
// through. It is safe for concurrent use.
type Registering struct {
	pool.Store
	mu         sync.Mutex
	regions    map[uintptr]int // base -> length
	registered int
	in, out    int
}

// NewRegistering wraps s.
func NewRegistering(s pool.Store) *Registering {
	return &Registering{Store: s, regions: map[uintptr]int{}}
}

// RegisterBuffer registers b until the returned function is called; a
// buffer registered twice at once is an error.
func (r *Registering) RegisterBuffer(b []byte) (func() error, error) {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.regions[base]; dup {
		return nil, fmt.Errorf("%#x already registered", base)
	}
	r.regions[base] = len(b)
	r.registered++
	return func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.regions, base)
		return nil
	}, nil
}

// count counts b as inside one registered buffer or not.
func (r *Registering) count(b []byte) {
	a := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	r.mu.Lock()
	defer r.mu.Unlock()
	for base, n := range r.regions {
		if a >= base && a+uintptr(len(b)) <= base+uintptr(n) {
			r.in++
			return
		}
	}
	r.out++
}

// Get counts the buffers, then gets from the wrapped store.
func (r *Registering) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	for _, b := range bufs {
		r.count(b)
	}
	return r.Store.Get(ctx, keys, bufs, n)
}

// Put counts the values, then puts to the wrapped store.
func (r *Registering) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	for _, it := range items {
		r.count(it.Value)
	}
	return r.Store.Put(ctx, items, results)
}

// Counts returns how many values and buffers lay inside a registered
// buffer and how many did not.
func (r *Registering) Counts() (inside, outside int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.in, r.out
}

// Registrations returns how many buffers were registered in all and how
// many still are.
func (r *Registering) Registrations() (total, left int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.registered, len(r.regions)
}
