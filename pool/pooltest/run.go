package pooltest

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// Run runs the conformance suite for a writable backend. open returns a
// store for one subtest; it may be fresh or shared with other subtests and
// other runs (every subtest uses its own key prefix), and Run closes it.
func Run(t *testing.T, open func(t *testing.T) pool.Store) {
	cases := []struct {
		name string
		test func(f *fixture)
	}{
		{"PutIfAbsent", testPutIfAbsent},
		{"ExistStatuses", testExistStatuses},
		{"GetIntoBuffers", testGetIntoBuffers},
		{"Remove", testRemove},
		{"RemoveForce", testRemoveForce},
		{"EmptyBatches", testEmptyBatches},
		{"DuplicateKeysInBatch", testDuplicateKeys},
		{"MismatchedLengths", testMismatchedLengths},
		{"ConcurrentWritersOneKey", testConcurrentWriters},
		{"LargeValue", testLargeValue},
		{"ManyKeysOneBatch", testManyKeys},
		{"KeyCharacters", testKeyCharacters},
		{"StatKeys", testStatKeys},
		{"ContextCanceled", testContextCanceled},
		{"List", testList},
		{"ExistLeasing", testExistLeasing},
		{"Sizes", testSizes},
		{"Usage", testUsage},
		{"ArenasPinned", testArenasPinned},
		{"Leases", testLeases},
		{"Locate", testLocate},
		{"KeysCopied", testKeysCopied},
		{"GetParts", testGetParts},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.test(newFixture(t, open)) })
	}
}

func testPutIfAbsent(f *fixture) {
	k := f.key("k")
	first, second := value("first", 100), value("second", 200)
	if got := f.put(item(k, first)); got[0] != pool.OK {
		f.t.Fatalf("Put(%q) of a new key = %v, want OK", k, got[0])
	}
	if got := f.put(item(k, second)); got[0] != pool.ObjectAlreadyExists {
		f.t.Errorf("Put(%q) of an existing key = %v, want OBJECT_ALREADY_EXISTS", k, got[0])
	}
	f.mustGet(k, first)
}

func testExistStatuses(f *fixture) {
	a, b, missing := f.key("a"), f.key("b"), f.key("missing")
	f.mustPut(item(a, value(a, 10)), item(b, value(b, 20)))
	got := f.exist(missing, a, b, missing)
	if want := []int{0, 1, 1, 0}; !slices.Equal(got, want) {
		f.t.Errorf("Exist(missing, a, b, missing) = %v, want %v", got, want)
	}
}

func testGetIntoBuffers(f *fixture) {
	k, missing := f.key("k"), f.key("missing")
	v := value(k, 1000)
	f.mustPut(item(k, v))
	bufs := [][]byte{make([]byte, 4096), make([]byte, len(v)), make([]byte, len(v)-1), make([]byte, 10)}
	n := make([]int64, len(bufs))
	if err := f.s.Get(f.ctx, []string{k, k, k, missing}, bufs, n); err != nil {
		f.t.Fatalf("Get = %v, want nil", err)
	}
	want := []int64{int64(len(v)), int64(len(v)), int64(pool.InvalidParams), int64(pool.ObjectNotFound)}
	if !slices.Equal(n, want) {
		f.t.Fatalf("Get(k into 4096, k into exact, k into too small, missing) n = %v, want %v", n, want)
	}
	for i := range 2 {
		if got := bufs[i][:len(v)]; string(got) != string(v) {
			f.t.Errorf("Get(k) buffer %d = %s, want %s", i, describe(got), describe(v))
		}
	}
}

func testRemove(f *fixture) {
	k := f.key("k")
	f.mustPut(item(k, value("old", 64)))
	if got := f.remove(false, k); got[0] != pool.OK {
		f.t.Fatalf("Remove(%q) of an unread key = %v, want OK", k, got[0])
	}
	if got := f.exist(k); got[0] != 0 {
		f.t.Errorf("Exist(%q) after Remove = %d, want 0", k, got[0])
	}
	if _, n := f.get(64, k); n[0] != int64(pool.ObjectNotFound) {
		f.t.Errorf("Get(%q) after Remove n = %d, want %d", k, n[0], pool.ObjectNotFound)
	}
	if got := f.remove(false, k); got[0] != pool.ObjectNotFound {
		f.t.Errorf("Remove(%q) again = %v, want OBJECT_NOT_FOUND", k, got[0])
	}
	fresh := value("new", 80)
	f.mustPut(item(k, fresh))
	f.mustGet(k, fresh)
}

// testRemoveForce reads a key (which may lease it), then removes it: a
// plain Remove may be refused with OBJECT_HAS_LEASE, a forced one may not.
func testRemoveForce(f *fixture) {
	k := f.key("k")
	f.mustPut(item(k, value(k, 64)))
	f.mustGet(k, value(k, 64))
	plain := f.remove(false, k)[0]
	if plain != pool.OK && plain != pool.ObjectHasLease {
		f.t.Fatalf("Remove(%q) of a read key = %v, want OK or OBJECT_HAS_LEASE", k, plain)
	}
	forced := f.remove(true, k)[0]
	want := pool.OK
	if plain == pool.OK {
		want = pool.ObjectNotFound
	}
	if forced != want {
		f.t.Errorf("Remove(%q, force) after plain Remove = %v = %v, want %v", k, plain, forced, want)
	}
	if got := f.exist(k); got[0] != 0 {
		f.t.Errorf("Exist(%q) after forced Remove = %d, want 0", k, got[0])
	}
}

func testEmptyBatches(f *fixture) {
	calls := map[string]func() error{
		"Exist":  func() error { return f.s.Exist(f.ctx, nil, nil) },
		"Put":    func() error { return f.s.Put(f.ctx, nil, nil) },
		"Get":    func() error { return f.s.Get(f.ctx, nil, nil, nil) },
		"Remove": func() error { return f.s.Remove(f.ctx, nil, true, nil) },
		"ExistEmptySlices": func() error {
			return f.s.Exist(f.ctx, []string{}, []int{})
		},
	}
	for name, call := range calls {
		if err := call(); err != nil {
			f.t.Errorf("%s(empty batch) = %v, want nil", name, err)
		}
	}
}

func testDuplicateKeys(f *fixture) {
	k := f.key("k")
	first := value("first", 33)
	got := f.put(item(k, first), item(k, value("second", 44)))
	if want := []pool.Code{pool.OK, pool.ObjectAlreadyExists}; !slices.Equal(got, want) {
		f.t.Fatalf("Put(k, k) in one batch = %v, want %v", got, want)
	}
	if st := f.exist(k, k); !slices.Equal(st, []int{1, 1}) {
		f.t.Errorf("Exist(k, k) = %v, want [1 1]", st)
	}
	bufs, n := f.get(64, k, k)
	for i := range 2 {
		if n[i] != int64(len(first)) || string(bufs[i][:len(first)]) != string(first) {
			f.t.Errorf("Get(k, k)[%d] = %d bytes %s, want %s", i, n[i], describe(bufs[i][:max(n[i], 0)]), describe(first))
		}
	}
	if got := f.remove(true, k, k); !slices.Equal(got, []pool.Code{pool.OK, pool.ObjectNotFound}) {
		f.t.Errorf("Remove(k, k, force) = %v, want [OK OBJECT_NOT_FOUND]", got)
	}
}

// testMismatchedLengths checks that result slices of the wrong length are
// an error, not a panic.
func testMismatchedLengths(f *fixture) {
	k := f.key("k")
	keys := []string{k, k}
	calls := map[string]func() error{
		"Exist":         func() error { return f.s.Exist(f.ctx, keys, make([]int, 1)) },
		"Put":           func() error { return f.s.Put(f.ctx, []pool.PutItem{item(k, []byte("v"))}, make([]pool.Code, 2)) },
		"Get/bufs":      func() error { return f.s.Get(f.ctx, keys, make([][]byte, 1), make([]int64, 2)) },
		"Get/n":         func() error { return f.s.Get(f.ctx, keys, [][]byte{nil, nil}, make([]int64, 3)) },
		"Remove":        func() error { return f.s.Remove(f.ctx, keys, true, make([]pool.Code, 1)) },
		"Exist/nilSlot": func() error { return f.s.Exist(f.ctx, keys, nil) },
	}
	for name, call := range calls {
		if err := callNoPanic(call); err == nil {
			f.t.Errorf("%s with mismatched slice lengths = nil, want an error", name)
		} else if errors.Is(err, errPanicked) {
			f.t.Errorf("%s with mismatched slice lengths: %v", name, err)
		}
	}
	if got := f.exist(k); got[0] != 0 {
		f.t.Errorf("Exist(%q) after a refused Put = %d, want 0", k, got[0])
	}
}

func testLargeValue(f *fixture) {
	k := f.key("large")
	v := value(k, 4<<20)
	f.mustPut(item(k, v))
	f.mustGet(k, v)
}

func testManyKeys(f *fixture) {
	const n = 1000
	items := make([]pool.PutItem, n)
	keys := make([]string, n)
	for i := range items {
		keys[i] = f.key("many/" + strconv.Itoa(i))
		items[i] = item(keys[i], value(keys[i], 100+i))
	}
	f.mustPut(items...)
	for i, st := range f.exist(keys...) {
		if st != 1 {
			f.t.Fatalf("Exist(%q) = %d, want 1", keys[i], st)
		}
	}
	bufs, got := f.get(n+100, keys...)
	for i := range keys {
		if got[i] != int64(100+i) || string(bufs[i][:got[i]]) != string(items[i].Value) {
			f.t.Fatalf("Get(%q) = %d bytes, want %d bytes %s", keys[i], got[i], 100+i, describe(items[i].Value))
		}
	}
}

func testKeyCharacters(f *fixture) {
	names := []string{"a/b/c", "/leading", "trailing/", "ключ/блок", "鍵😀", "with space", "tab\tand:colon", "percent%2F"}
	for _, name := range names {
		k := f.key(name)
		v := value(k, 50)
		f.mustPut(item(k, v))
		if st := f.exist(k); st[0] != 1 {
			f.t.Errorf("Exist(%q) = %d, want 1", k, st[0])
		}
		f.mustGet(k, v)
	}
}

func testStatKeys(f *fixture) {
	before := stat(f)
	if before.Backend == "" {
		f.t.Errorf("Stat().Backend = %q, want the backend's name", before.Backend)
	}
	keys := []string{f.key("s1"), f.key("s2"), f.key("s3")}
	for _, k := range keys {
		f.mustPut(item(k, value(k, 128)))
	}
	if after := stat(f); after.Keys-before.Keys != 3 {
		f.t.Errorf("Stat().Keys after 3 puts = %d, want %d + 3", after.Keys, before.Keys)
	}
	f.remove(true, keys...)
	if after := stat(f); after.Keys != before.Keys {
		f.t.Errorf("Stat().Keys after removing them = %d, want %d", after.Keys, before.Keys)
	}
}

func stat(f *fixture) pool.Stat {
	f.t.Helper()
	st, err := f.s.Stat(f.ctx)
	if err != nil {
		f.t.Fatalf("Stat() = %v, want nil", err)
	}
	return st
}

func testContextCanceled(f *fixture) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	k := f.key("k")
	calls := map[string]func() error{
		"Exist":  func() error { return f.s.Exist(ctx, []string{k}, make([]int, 1)) },
		"Put":    func() error { return f.s.Put(ctx, []pool.PutItem{item(k, []byte("v"))}, make([]pool.Code, 1)) },
		"Get":    func() error { return f.s.Get(ctx, []string{k}, [][]byte{make([]byte, 8)}, make([]int64, 1)) },
		"Remove": func() error { return f.s.Remove(ctx, []string{k}, true, make([]pool.Code, 1)) },
	}
	for name, call := range calls {
		if err := callNoPanic(call); !errors.Is(err, context.Canceled) {
			f.t.Errorf("%s(canceled context) = %v, want an error wrapping context.Canceled", name, err)
		}
	}
	if got := f.exist(k); got[0] != 0 {
		f.t.Errorf("Exist(%q) after a Put with a canceled context = %d, want 0", k, got[0])
	}
}
