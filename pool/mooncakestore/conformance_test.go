package mooncakestore

import (
	"context"
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
