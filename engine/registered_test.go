package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/kvctl/kvctl/pool"
)

// registeringPool is a pool that takes buffer registrations
// (pool.BufferRegistrar) and counts the values put and buffers read into
// that lay outside every registered buffer.
type registeringPool struct {
	pool.Store
	mu              sync.Mutex
	regions         map[uintptr]int
	inside, outside int
}

func (r *registeringPool) RegisterBuffer(b []byte) (func() error, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	r.regions[base] = len(b)
	return func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.regions, base)
		return nil
	}, nil
}

func (r *registeringPool) count(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for base, n := range r.regions {
		if a >= base && a+uintptr(len(b)) <= base+uintptr(n) {
			r.inside++
			return
		}
	}
	r.outside++
}

func (r *registeringPool) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	for _, b := range bufs {
		r.count(b)
	}
	return r.Store.Get(ctx, keys, bufs, n)
}

func (r *registeringPool) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	for _, it := range items {
		r.count(it.Value)
	}
	return r.Store.Put(ctx, items, results)
}

// TestPagesRegisteredWithThePool checks that an engine hands a pool that
// takes buffer registrations only memory it registered (its pages, or
// the host mover's staging), and unregisters it at the end of the run.
func TestPagesRegisteredWithThePool(t *testing.T) {
	for _, staged := range []bool{false, true} {
		t.Run(fmt.Sprintf("stage_through_host=%v", staged), func(t *testing.T) {
			cfg, p := testConfig(t)
			rp := &registeringPool{Store: p, regions: map[uintptr]int{}}
			cfg.Pool, cfg.Connector.StageThroughHost = rp, staged
			runOK(t, cfg, testWorkload)
			cfg.Clock = NewClock()
			if rep := runOK(t, cfg, testWorkload); rep.PoolHitTokens == 0 {
				t.Fatalf("second run: 0 pool hit tokens, want loads from the pool")
			}
			if rp.inside == 0 || rp.outside != 0 || len(rp.regions) != 0 {
				t.Errorf("pool calls saw %d buffers inside registered memory, %d outside, %d left registered; want some, 0, 0",
					rp.inside, rp.outside, len(rp.regions))
			}
		})
	}
}
