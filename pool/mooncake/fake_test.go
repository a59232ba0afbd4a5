package mooncake

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"

	"github.com/kvctl/kvctl/pool"
)

// fakeStore is a small map-backed pool.Store, pool.Lister and
// pool.LeasingExister whose failures tests can choose.
type fakeStore struct {
	mu     sync.Mutex
	keys   map[string][]byte
	leases map[string]int // leasing probes per key
	stat   pool.Stat

	statCalls int // calls of Stat

	existErr error // returned by Exist and ExistLeasing
	statErr  error // returned by Stat
	listErr  error // returned by List after listOK keys
	listOK   int
}

var (
	_ pool.Store          = (*fakeStore)(nil)
	_ pool.Lister         = (*fakeStore)(nil)
	_ pool.LeasingExister = (*fakeStore)(nil)
)

func newFakeStore(keys ...string) *fakeStore {
	f := &fakeStore{keys: map[string][]byte{}, leases: map[string]int{}}
	for _, k := range keys {
		f.keys[k] = []byte("v:" + k)
	}
	return f
}

func (f *fakeStore) Exist(ctx context.Context, keys []string, status []int) error {
	return f.exist(keys, status, false)
}

func (f *fakeStore) ExistLeasing(ctx context.Context, keys []string, status []int) error {
	return f.exist(keys, status, true)
}

func (f *fakeStore) exist(keys []string, status []int, lease bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.existErr != nil {
		return f.existErr
	}
	for i, k := range keys {
		status[i] = 0
		if _, ok := f.keys[k]; ok {
			status[i] = 1
			if lease {
				f.leases[k]++
			}
		}
	}
	return nil
}

func (f *fakeStore) leaseCount(k string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.leases[k]
}

func (f *fakeStore) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, it := range items {
		if _, ok := f.keys[it.Key]; ok {
			results[i] = pool.ObjectAlreadyExists
			continue
		}
		f.keys[it.Key] = append([]byte(nil), it.Value...)
		results[i] = pool.OK
	}
	return nil
}

func (f *fakeStore) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, k := range keys {
		v, ok := f.keys[k]
		switch {
		case !ok:
			n[i] = int64(pool.ObjectNotFound)
		case len(bufs[i]) < len(v):
			n[i] = int64(pool.InvalidParams)
		default:
			n[i] = int64(copy(bufs[i], v))
		}
	}
	return nil
}

func (f *fakeStore) Remove(ctx context.Context, keys []string, force bool, results []pool.Code) error {
	return errors.New("fake: remove not supported")
}

func (f *fakeStore) Stat(ctx context.Context) (pool.Stat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statCalls++
	st := f.stat
	st.Keys = int64(len(f.keys))
	return st, f.statErr
}

// statCount returns how many times Stat was called.
func (f *fakeStore) statCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.statCalls
}

func (f *fakeStore) List(ctx context.Context, prefix string, fn func(string) error) error {
	f.mu.Lock()
	keys := make([]string, 0, len(f.keys))
	for k := range f.keys {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	listErr, listOK := f.listErr, f.listOK
	f.mu.Unlock()
	sort.Strings(keys)
	for i, k := range keys {
		if listErr != nil && i == listOK {
			return listErr
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	return listErr
}

func (f *fakeStore) Close() error { return nil }

// noListStore hides every ability but pool.Store.
type noListStore struct{ pool.Store }
