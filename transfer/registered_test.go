package transfer

import (
	"context"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
)

// registeringStore is a mapStore that takes buffer registrations
// (pool.BufferRegistrar) and counts the values and buffers that lay
// inside a registered buffer and those that did not.
type registeringStore struct {
	*mapStore
	mu         sync.Mutex
	regions    map[uintptr]int
	in, out    int
	registered int
}

func newRegisteringStore() *registeringStore {
	return &registeringStore{mapStore: newMapStore(), regions: map[uintptr]int{}}
}

func (r *registeringStore) RegisterBuffer(b []byte) (func() error, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	r.regions[base] = len(b)
	r.registered++
	return func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.regions, base)
		return nil
	}, nil
}

// count counts b as inside a registered buffer or not.
func (r *registeringStore) count(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for base, n := range r.regions {
		if a >= base && a+uintptr(len(b)) <= base+uintptr(n) {
			r.in++
			return
		}
	}
	r.out++
}

func (r *registeringStore) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	for _, b := range bufs {
		r.count(b)
	}
	return r.mapStore.Get(ctx, keys, bufs, n)
}

func (r *registeringStore) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	for _, it := range items {
		r.count(it.Value)
	}
	return r.mapStore.Put(ctx, items, results)
}

// TestStagingRegisteredWithThePool checks that a staged loader and saver
// register their staging with a pool that takes it, hand the pool only
// buffers inside it, and unregister it when they close.
func TestStagingRegisteredWithThePool(t *testing.T) {
	store := newRegisteringStore()
	f := newFixture(t, 16, store.mapStore)
	rs := append(refs("g0", 0, 0, 7), refs("g1", 1, 3, 6)...)
	f.fillGPU(t, rs)
	o := f.options()
	o.Pool, o.Batch = store, 4
	s, err := NewSaver(o)
	if err != nil {
		t.Fatalf("NewSaver error = %v", err)
	}
	if _, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil); err != nil {
		t.Fatalf("Save error = %v", err)
	}
	s.Close()
	f.zeroGPU(t)
	l, err := NewLoader(o)
	if err != nil {
		t.Fatalf("NewLoader error = %v", err)
	}
	results, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: rs}})
	if err != nil || !results[0].OK() {
		t.Fatalf("Load = %+v, %v, want every page landed", results, err)
	}
	l.Close()
	f.checkLanded(t, rs)
	if store.registered != 2 || store.in != 2*len(rs) || store.out != 0 || len(store.regions) != 0 {
		t.Errorf("registrations %d, values in registered staging %d, outside %d, left registered %d; want 2, %d, 0, 0",
			store.registered, store.in, store.out, len(store.regions), 2*len(rs))
	}
}

// reportingStore is a registeringStore whose client reports its
// transport.
type reportingStore struct{ *registeringStore }

func (reportingStore) Transport() pool.Transport {
	return pool.Transport{Protocol: "tcp", LocalHostname: "h:1", DeviceMemory: pool.NotKnown}
}

// TestBenchResultSaysWhatThePoolReports checks the bench result's
// pool_transport and staging_registered against the pool's abilities.
func TestBenchResultSaysWhatThePoolReports(t *testing.T) {
	tr := pool.Transport{Protocol: "tcp", LocalHostname: "h:1", DeviceMemory: pool.NotKnown}
	tests := []struct {
		name           string
		store          pool.Store
		direct         bool
		wantTransport  *pool.Transport
		wantRegistered bool
	}{
		{"plain pool", newMapStore(), false, nil, false},
		{"registering pool", newRegisteringStore(), false, nil, true},
		{"reporting pool", reportingStore{newRegisteringStore()}, false, &tr, true},
		{"reporting pool, direct", reportingStore{newRegisteringStore()}, true, &tr, false},
	}
	for _, tt := range tests {
		r := newBenchResult(BenchOptions{Options: Options{Device: testDevice(t), Pool: tt.store, Direct: tt.direct}, PageBytes: 64, RegionsPerPage: 1})
		if diff := cmp.Diff(tt.wantTransport, r.PoolTransport); diff != "" || r.StagingRegistered != tt.wantRegistered {
			t.Errorf("%s: newBenchResult: staging registered %v, want %v; transport (-want +got):\n%s", tt.name, r.StagingRegistered, tt.wantRegistered, diff)
		}
	}
}
