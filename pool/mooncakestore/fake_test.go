package mooncakestore

import (
	"context"
	"sync"
	"testing"
	"unsafe"

	"github.com/kvctl/kvctl/pool"
)

// fakeClient is a client with the semantics of Mooncake's C client that
// the Store relies on: a put of a present key is success, a read into a
// buffer too small is INVALID_PARAMS, and every buffer handed to a put or
// a get must lie in registered memory.
type fakeClient struct {
	mu         sync.Mutex
	values     map[string][]byte
	registered map[uintptr]int
	destroyed  bool
	// transferred is the address of every buffer a put or a get was
	// given, in order.
	transferred []uintptr
	// name is what hostname reports; empty: a library without
	// mooncake_store_get_hostname.
	name string
	t    *testing.T
}

func newFakeClient(t *testing.T) *fakeClient {
	return &fakeClient{values: map[string][]byte{}, registered: map[uintptr]int{}, t: t}
}

func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// checkRegistered fails the test unless b lies in a registered buffer.
func (f *fakeClient) checkRegistered(b []byte) {
	if len(b) == 0 {
		return
	}
	a := addr(b)
	for base, n := range f.registered {
		if a >= base && a+uintptr(len(b)) <= base+uintptr(n) {
			return
		}
	}
	f.t.Errorf("buffer at %#x (%d bytes) is not registered", a, len(b))
}

func (f *fakeClient) healthCheck() int32 { return 0 }

func (f *fakeClient) batchIsExist(keys []string, results []int32) int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, k := range keys {
		results[i] = 0
		if _, ok := f.values[k]; ok {
			results[i] = 1
		}
	}
	return 0
}

func (f *fakeClient) batchPutFrom(keys []string, bufs [][]byte, _ replicateConfig, results []int32) int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, k := range keys {
		f.checkRegistered(bufs[i])
		f.transferred = append(f.transferred, addr(bufs[i]))
		if _, ok := f.values[k]; !ok {
			f.values[k] = append([]byte(nil), bufs[i]...)
		}
		results[i] = 0
	}
	return 0
}

// batchGetInto fills, as the real client does, one buffer per distinct key
// of a call: a key given twice has its earlier buffers answered but left
// unwritten (seen against mooncake_store_batch_get_into at Mooncake
// 3b5a5941).
func (f *fakeClient) batchGetInto(keys []string, bufs [][]byte, results []int64) int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	last := make(map[string]int, len(keys))
	for i, k := range keys {
		last[k] = i
	}
	for i, k := range keys {
		f.checkRegistered(bufs[i])
		f.transferred = append(f.transferred, addr(bufs[i]))
		v, ok := f.values[k]
		switch {
		case !ok:
			results[i] = int64(pool.ObjectNotFound)
		case len(v) > len(bufs[i]):
			results[i] = int64(pool.InvalidParams)
		case last[k] != i:
			results[i] = int64(len(v))
		default:
			results[i] = int64(copy(bufs[i], v))
		}
	}
	return 0
}

func (f *fakeClient) getSize(key string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if v, ok := f.values[key]; ok {
		return int64(len(v))
	}
	return int64(pool.ObjectNotFound)
}

func (f *fakeClient) remove(key string, _ bool) int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.values[key]; !ok {
		return int32(pool.ObjectNotFound)
	}
	delete(f.values, key)
	return 0
}

func (f *fakeClient) removeAll(bool) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.values)
	clear(f.values)
	return int64(n)
}

func (f *fakeClient) registerBuffer(b []byte) int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.registered[addr(b)] = len(b)
	return 0
}

func (f *fakeClient) unregisterBuffer(b []byte) int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.registered[addr(b)]; !ok {
		return int32(pool.InvalidParams)
	}
	delete(f.registered, addr(b))
	return 0
}

func (f *fakeClient) hostname() (string, bool) { return f.name, f.name != "" }

func (f *fakeClient) destroy() { f.destroyed = true }

// openFake opens a Store over a fake client with small staging buffers,
// so that batches are split into several runs and large values take a
// buffer of their own.
func openFake(t *testing.T, f *fakeClient) *Store {
	t.Helper()
	s, err := newStore(context.Background(), Config{MasterServerAddress: "fake:50051", StagingBytes: 64 << 10}, f)
	if err != nil {
		t.Fatalf("newStore(fake) = %v, want nil", err)
	}
	return s
}
