package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// registrarStore is a pool that takes buffer registrations: it records,
// for each Put and Get, whether the value's bytes lay in registered memory
// when the call ran. Close keeps the pool, so separate commands share it.
type registrarStore struct {
	pool.Store
	pool.Sizer
	mu      sync.Mutex
	regs    map[uintptr]int // base -> length
	inPlace []string        // "put true", "get false", ...
}

func (r *registrarStore) RegisterBuffer(b []byte) (func() error, error) {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.regs[base]; dup {
		return nil, fmt.Errorf("%#x already registered", base)
	}
	r.regs[base] = len(b)
	return func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.regs, base)
		return nil
	}, nil
}

// note records whether b lies in one registered region.
func (r *registrarStore) note(op string, b []byte) {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	r.mu.Lock()
	defer r.mu.Unlock()
	in := false
	for rb, n := range r.regs {
		in = in || (base >= rb && base+uintptr(len(b)) <= rb+uintptr(n))
	}
	r.inPlace = append(r.inPlace, fmt.Sprintf("%s %v", op, in))
}

func (r *registrarStore) Put(ctx context.Context, items []pool.PutItem, res []pool.Code) error {
	r.note("put", items[0].Value)
	return r.Store.Put(ctx, items, res)
}

func (r *registrarStore) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	r.note("get", bufs[0])
	return r.Store.Get(ctx, keys, bufs, n)
}

func (r *registrarStore) Close() error { return nil }

// testRegistrar is the store the kvctl-registrar-test scheme opens.
var testRegistrar = func() *registrarStore {
	p, err := mem.New(mem.Options{Capacity: 64 << 20})
	if err != nil {
		panic(err)
	}
	r := &registrarStore{Store: p, Sizer: p, regs: map[uintptr]int{}}
	pool.Register("kvctl-registrar-test", func(context.Context, *url.URL) (pool.Store, error) { return r, nil })
	return r
}()

// TestPoolPutGetRegistered: pool put and pool get on a store that takes
// buffer registrations (mooncake-store's) hand it the value in registered
// memory, so it moves in place, and leave nothing registered.
func TestPoolPutGetRegistered(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "v.bin"), filepath.Join(dir, "out.bin")
	val := bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, 300_000)
	if err := os.WriteFile(from, val, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"pool", "put", "--pool", "kvctl-registrar-test://", "k", "--from", from},
		{"pool", "get", "--pool", "kvctl-registrar-test://", "k", "--to", to},
	} {
		ios, _, errOut := NewTestIOStreams("")
		if code := run(context.Background(), ios, args); code != ExitOK {
			t.Fatalf("run(%q) = %d, want %d; stderr %q", args, code, ExitOK, errOut)
		}
	}
	got, err := os.ReadFile(to)
	if err != nil || !bytes.Equal(got, val) {
		t.Errorf("pool get --to = %d bytes, %v, want the %d bytes put", len(got), err, len(val))
	}
	if diff := cmp.Diff([]string{"put true", "get true"}, testRegistrar.inPlace); diff != "" {
		t.Errorf("values in registered memory (-want +got):\n%s", diff)
	}
	if len(testRegistrar.regs) != 0 {
		t.Errorf("registered after the commands = %v, want none", testRegistrar.regs)
	}
}

// TestReadValue reads a file at its size and a stream through growth.
func TestReadValue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v")
	val := bytes.Repeat([]byte("kv"), 70_000)
	if err := os.WriteFile(path, val, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, r := range map[string]io.Reader{"file": f, "stream": bytes.NewReader(val)} {
		got, err := readValue(r)
		if err != nil || !bytes.Equal(got, val) {
			t.Errorf("readValue(%s) = %d bytes, %v, want the %d bytes", name, len(got), err, len(val))
		}
	}
}
