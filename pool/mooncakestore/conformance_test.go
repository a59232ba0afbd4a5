package mooncakestore

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/kvctl/kvctl/pool"
	_ "github.com/kvctl/kvctl/pool/mooncake" // the admin API, for Stat and Exist
	"github.com/kvctl/kvctl/pool/pooltest"
)

// The environment of the tests against a real Mooncake Store: the library,
// the master's RPC address and its admin HTTP address. docs/pools.md says
// how to build and start them; CI has none and skips.
const (
	envLib    = "KVCTL_TEST_MOONCAKE_LIB"
	envMaster = "KVCTL_TEST_MOONCAKE_MASTER"
	envAdmin  = "KVCTL_TEST_MOONCAKE_ADMIN"
)

// openReal opens the real store the environment names, as a client that
// mounts a 256 MiB segment of its own, or skips the test.
func openReal(t *testing.T) *Store {
	t.Helper()
	lib, master, admin := os.Getenv(envLib), os.Getenv(envMaster), os.Getenv(envAdmin)
	if lib == "" || master == "" || admin == "" {
		t.Skipf("no Mooncake Store to test against: set %s (libmooncake_store.so), %s (the master's RPC address) and %s (its admin HTTP address)", envLib, envMaster, envAdmin)
	}
	q := url.Values{"lib": {lib}, "admin": {admin}, "hostname": {"127.0.0.1"}, "protocol": {"tcp"}, "segment": {"256MiB"}}
	u := &url.URL{Scheme: "mooncake-store", Host: master, RawQuery: q.Encode()}
	cfg, err := ParseURL(u, func(string) string { return "" }, os.ReadFile)
	if err != nil {
		t.Fatalf("ParseURL(%s) = %v", u, err)
	}
	s, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open(%s) = %v, want nil", u, err)
	}
	return s
}

// shared is a Store the suite's subtests share; its Close does nothing and
// the test closes the Store at its end.
type shared struct{ *Store }

func (shared) Close() error { return nil }

func TestConformanceReal(t *testing.T) {
	s := openReal(t)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
	})
	pooltest.Run(t, func(*testing.T) pool.Store { return shared{s} })
}

// TestRegisteredReal puts from and gets into memory registered with the
// real client (RegisterBuffer), which then moves the values in place, and
// checks they come back whole.
func TestRegisteredReal(t *testing.T) {
	ctx := context.Background()
	s := openReal(t)
	defer s.Close()
	mem := make([]byte, 1<<20)
	unregister, err := s.RegisterBuffer(mem)
	if err != nil {
		t.Fatalf("RegisterBuffer(1 MiB) = %v, want nil", err)
	}
	defer unregister()
	const n = 8
	items, keys := make([]pool.PutItem, n), make([]string, n)
	for i := range n {
		v := mem[i*4096 : (i+1)*4096]
		for j := range v {
			v[j] = byte(i*31 + j)
		}
		keys[i] = fmt.Sprintf("kvctl-test-registered-%d", i)
		items[i] = pool.PutItem{Key: keys[i], Value: v}
	}
	codes := make([]pool.Code, n)
	if err := s.Put(ctx, items, codes); err != nil {
		t.Fatalf("Put(%d registered values) = %v, want nil", n, err)
	}
	defer s.Remove(ctx, keys, true, make([]pool.Code, n))
	bufs, sizes := make([][]byte, n), make([]int64, n)
	for i := range bufs {
		bufs[i] = mem[512<<10+i*4096 : 512<<10+(i+1)*4096]
	}
	if err := s.Get(ctx, keys, bufs, sizes); err != nil {
		t.Fatalf("Get(%d keys into registered buffers) = %v, want nil", n, err)
	}
	for i := range n {
		if codes[i] != pool.OK || sizes[i] != 4096 || !bytes.Equal(bufs[i], items[i].Value) {
			t.Errorf("key %d: put %v, got %d bytes, equal %v; want OK, 4096, true", i, codes[i], sizes[i], bytes.Equal(bufs[i], items[i].Value))
		}
	}
}

// TestTransportReal checks what the real library reports of its transfer
// engine: the protocol it was set up with and a local hostname.
func TestTransportReal(t *testing.T) {
	s := openReal(t)
	defer s.Close()
	tr := s.Transport()
	if tr.Protocol != "tcp" || tr.LocalHostname == pool.NotKnown || tr.LocalHostname == "" || tr.DeviceMemory != pool.NotKnown {
		t.Errorf("Transport() = %+v, want protocol tcp, a local hostname, device memory %q", tr, pool.NotKnown)
	}
	t.Logf("Transport() = %+v", tr)
}
