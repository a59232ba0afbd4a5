package cmd

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/pool/pooltest"
)

// registrarStore is a pool that takes buffer registrations and sizes
// values; Close keeps the pool, so separate commands share it.
type registrarStore struct {
	*pooltest.Registering
	pool.Sizer
}

func (r *registrarStore) Close() error { return nil }

// testRegistrar is the store the kvctl-registrar-test scheme opens.
var testRegistrar = func() *registrarStore {
	p, err := mem.New(mem.Options{Capacity: 64 << 20})
	if err != nil {
		panic(err)
	}
	r := &registrarStore{Registering: pooltest.NewRegistering(p), Sizer: p}
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
	in, out := testRegistrar.Counts()
	if _, left := testRegistrar.Registrations(); in != 2 || out != 0 || left != 0 {
		t.Errorf("values in registered memory %d, outside %d, left registered %d; want 2 (the put's, the get's), 0, 0", in, out, left)
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
