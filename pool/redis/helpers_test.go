package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/alicebob/miniredis/v2"

	"github.com/kvctl/kvctl/pool"
)

// Environment variables that name real servers for the backend tests.
const (
	envServer  = "KVCTL_TEST_REDIS_URL"
	envCluster = "KVCTL_TEST_REDIS_CLUSTER_URL"
)

// target is one server the backend tests run against.
type target struct {
	name string
	// open opens a store on the target, closed when the test ends.
	open func(t *testing.T) *Store
	// fresh says the target holds nothing but what the test writes.
	fresh bool
}

// targets are miniredis (always), the server KVCTL_TEST_REDIS_URL names and
// the cluster KVCTL_TEST_REDIS_CLUSTER_URL names.
func targets() []target {
	return []target{
		{name: "miniredis", open: openMiniredis, fresh: true},
		{name: "server", open: openEnv(envServer, "redis://127.0.0.1:6379/15")},
		{name: "cluster", open: openEnv(envCluster, "redis://127.0.0.1:7000?addr=127.0.0.1:7001&addr=127.0.0.1:7002")},
	}
}

// forEachTarget runs fn as a subtest per target, with a key namespace of
// its own whose keys are removed when the test ends.
func forEachTarget(t *testing.T, fn func(t *testing.T, s *Store, ns string, fresh bool)) {
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			s := tg.open(t)
			ns := testNamespace(t, s)
			fn(t, s, ns, tg.fresh)
		})
	}
}

func openMiniredis(t *testing.T) *Store {
	t.Helper()
	m := miniredis.RunT(t)
	return mustOpen(t, "redis://"+m.Addr()+"/0")
}

func openEnv(env, example string) func(t *testing.T) *Store {
	return func(t *testing.T) *Store {
		t.Helper()
		raw := os.Getenv(env)
		if raw == "" {
			t.Skipf("%s is not set; set it (e.g. %s) to run against a real server", env, example)
		}
		return mustOpen(t, raw)
	}
}

func mustOpen(t *testing.T, raw string) *Store {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("url.Parse(%q) = %v", raw, err)
	}
	s, err := Open(context.Background(), u)
	if err != nil {
		t.Fatalf("Open(%q) = %v", raw, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// testNamespace is a key prefix unique to the test; its keys are removed
// when the test ends.
func testNamespace(t *testing.T, s *Store) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	ns := "kvctltest-" + hex.EncodeToString(b[:]) + "/"
	t.Cleanup(func() { removeAll(t, s, ns) })
	return ns
}

func removeAll(t *testing.T, s *Store, prefix string) {
	ctx := context.Background()
	var keys []string
	if err := s.List(ctx, prefix, func(k string) error { keys = append(keys, k); return nil }); err != nil {
		t.Errorf("cleanup: List(%q) = %v", prefix, err)
		return
	}
	if len(keys) == 0 {
		return
	}
	if err := s.Remove(ctx, keys, true, make([]pool.Code, len(keys))); err != nil {
		t.Errorf("cleanup: Remove(%d keys) = %v", len(keys), err)
	}
}

// putAll stores values under keys and fails the test unless all were stored.
func putAll(t *testing.T, s *Store, kv map[string][]byte) {
	t.Helper()
	items := make([]pool.PutItem, 0, len(kv))
	for k, v := range kv {
		items = append(items, pool.PutItem{Key: k, Value: v})
	}
	res := make([]pool.Code, len(items))
	if err := s.Put(context.Background(), items, res); err != nil {
		t.Fatalf("Put(%d items) = %v", len(items), err)
	}
	for i, c := range res {
		if c != pool.OK {
			t.Fatalf("Put(%q) = %v, want OK", items[i].Key, c)
		}
	}
}
