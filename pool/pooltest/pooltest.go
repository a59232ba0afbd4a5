// Package pooltest is the conformance suite every pool backend passes: Run
// for writable backends, RunReadOnly for read-only ones. It uses only the
// pool package's interfaces, so it runs against the embedded pool, a shared
// Redis and a live Mooncake master alike.
//
// Every subtest writes keys under its own unique prefix and removes them
// (with force) when it ends, so a shared server can run the suite, and
// closes every store open returned (open must not close it). The optional
// abilities Run covers (pool.Lister, pool.LeasingExister, pool.Sizer,
// pool.LeaseReporter, pool.Locator, pool.PartGetter) are tested when the store has them and
// skipped otherwise.
package pooltest

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// fixture is one subtest's store and the keys it wrote.
type fixture struct {
	t       *testing.T
	s       pool.Store
	ctx     context.Context
	prefix  string
	mu      sync.Mutex
	written []string
}

func newFixture(t *testing.T, open func(t *testing.T) pool.Store) *fixture {
	t.Helper()
	s := open(t)
	if s == nil {
		t.Fatal("open returned a nil store")
	}
	f := &fixture{t: t, s: s, ctx: context.Background(), prefix: uniquePrefix(t)}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
	})
	t.Cleanup(f.cleanup)
	return f
}

// uniquePrefix is "pooltest/<test name>/<random>/".
func uniquePrefix(t *testing.T) string {
	var b [6]byte
	crand.Read(b[:])
	name := strings.NewReplacer("/", ".", " ", "_").Replace(t.Name())
	return "pooltest/" + name + "/" + hex.EncodeToString(b[:]) + "/"
}

// key returns the subtest's key for name and remembers it for cleanup.
func (f *fixture) key(name string) string {
	k := f.prefix + name
	f.mu.Lock()
	f.written = append(f.written, k)
	f.mu.Unlock()
	return k
}

func (f *fixture) cleanup() {
	if len(f.written) == 0 {
		return
	}
	res := make([]pool.Code, len(f.written))
	if err := f.s.Remove(context.Background(), f.written, true, res); err != nil {
		f.t.Errorf("cleanup: Remove(force) = %v, want nil", err)
		return
	}
	for i, c := range res {
		if c != pool.OK && c != pool.ObjectNotFound {
			f.t.Errorf("cleanup: Remove(%q, force) = %v, want OK or OBJECT_NOT_FOUND", f.written[i], c)
		}
	}
}

// put stores items and returns their codes, failing the test on a call
// error.
func (f *fixture) put(items ...pool.PutItem) []pool.Code {
	f.t.Helper()
	res := make([]pool.Code, len(items))
	if err := f.s.Put(f.ctx, items, res); err != nil {
		f.t.Fatalf("Put(%d items) = %v, want nil", len(items), err)
	}
	return res
}

// mustPut stores items and fails the test unless each is OK.
func (f *fixture) mustPut(items ...pool.PutItem) {
	f.t.Helper()
	for i, c := range f.put(items...) {
		if c != pool.OK {
			f.t.Fatalf("Put(%q) = %v, want OK", items[i].Key, c)
		}
	}
}

func (f *fixture) exist(keys ...string) []int {
	f.t.Helper()
	st := make([]int, len(keys))
	if err := f.s.Exist(f.ctx, keys, st); err != nil {
		f.t.Fatalf("Exist(%d keys) = %v, want nil", len(keys), err)
	}
	return st
}

// get reads keys into buffers of bufSize bytes.
func (f *fixture) get(bufSize int, keys ...string) ([][]byte, []int64) {
	f.t.Helper()
	bufs := make([][]byte, len(keys))
	for i := range bufs {
		bufs[i] = make([]byte, bufSize)
	}
	n := make([]int64, len(keys))
	if err := f.s.Get(f.ctx, keys, bufs, n); err != nil {
		f.t.Fatalf("Get(%d keys) = %v, want nil", len(keys), err)
	}
	return bufs, n
}

// mustGet reads key and fails unless its value is want.
func (f *fixture) mustGet(key string, want []byte) {
	f.t.Helper()
	bufs, n := f.get(len(want)+16, key)
	if n[0] != int64(len(want)) {
		f.t.Fatalf("Get(%q) n = %d, want %d", key, n[0], len(want))
	}
	if got := bufs[0][:n[0]]; string(got) != string(want) {
		f.t.Fatalf("Get(%q) = %s, want %s", key, describe(got), describe(want))
	}
}

func (f *fixture) remove(force bool, keys ...string) []pool.Code {
	f.t.Helper()
	res := make([]pool.Code, len(keys))
	if err := f.s.Remove(f.ctx, keys, force, res); err != nil {
		f.t.Fatalf("Remove(%d keys, force=%t) = %v, want nil", len(keys), force, err)
	}
	return res
}

// value is n deterministic pseudo-random bytes derived from seed.
func value(seed string, n int) []byte {
	h := fnv.New64a()
	h.Write([]byte(seed))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(n)))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// describe summarises a value for failure messages.
func describe(b []byte) string {
	if len(b) <= 16 {
		return fmt.Sprintf("[%x]", b)
	}
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("[%x... %d bytes, fnv %016x]", b[:8], len(b), h.Sum64())
}

func item(key string, v []byte) pool.PutItem { return pool.PutItem{Key: key, Value: v} }
