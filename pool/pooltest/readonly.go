package pooltest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// readOnlySeed is the content RunReadOnly asks backends to serve. Keys hold
// no ',' (a Mooncake master cannot be asked for them in one batch query),
// no whitespace and no newline (a key listing has one key a line).
func readOnlySeed() map[string][]byte {
	keys := []string{"ro/a", "ro/b", "ro/dir/c", "ro/dir/sub/d", "ro/ключ/блок", "ro/鍵😀", "other/e"}
	seed := make(map[string][]byte, len(keys))
	for i, k := range keys {
		seed[k] = value(k, 64*(i+1))
	}
	return seed
}

// RunReadOnly runs the read half of the suite for a read-only backend.
// open returns a store serving exactly keys (with their values, for a
// backend that can read values); Run closes it. A backend that cannot read
// values answers Get with an error wrapping errors.ErrUnsupported, and the
// value checks are skipped.
func RunReadOnly(t *testing.T, open func(t *testing.T, keys map[string][]byte) pool.Store) {
	cases := []struct {
		name string
		test func(t *testing.T, s pool.Store, seed map[string][]byte)
	}{
		{"Exist", testReadOnlyExist},
		{"Get", testReadOnlyGet},
		{"List", testReadOnlyList},
		{"WritesRefused", testWritesRefused},
		{"ReportsReadOnly", testReportsReadOnly},
		{"BatchEdges", testReadOnlyBatchEdges},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seed := readOnlySeed()
			s := open(t, maps.Clone(seed))
			if s == nil {
				t.Fatal("open returned a nil store")
			}
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close() = %v, want nil", err)
				}
			})
			c.test(t, s, seed)
		})
	}
}

func testReadOnlyExist(t *testing.T, s pool.Store, seed map[string][]byte) {
	keys := append(slices.Sorted(maps.Keys(seed)), "ro/missing", "ro/a")
	st := make([]int, len(keys))
	if err := s.Exist(context.Background(), keys, st); err != nil {
		t.Fatalf("Exist = %v, want nil", err)
	}
	for i, k := range keys {
		want := 0
		if _, ok := seed[k]; ok {
			want = 1
		}
		if st[i] != want {
			t.Errorf("Exist(%q) = %d, want %d", k, st[i], want)
		}
	}
}

func testReadOnlyGet(t *testing.T, s pool.Store, seed map[string][]byte) {
	keys := append(slices.Sorted(maps.Keys(seed)), "ro/missing")
	bufs := make([][]byte, len(keys))
	for i := range bufs {
		bufs[i] = make([]byte, 1024)
	}
	n := make([]int64, len(keys))
	err := s.Get(context.Background(), keys, bufs, n)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("backend cannot read values: %v", err)
	}
	if err != nil {
		t.Fatalf("Get = %v, want nil or an error wrapping errors.ErrUnsupported", err)
	}
	for i, k := range keys {
		want, ok := seed[k]
		switch {
		case !ok && n[i] != int64(pool.ObjectNotFound):
			t.Errorf("Get(%q) n = %d, want %d", k, n[i], pool.ObjectNotFound)
		case ok && (n[i] != int64(len(want)) || string(bufs[i][:len(want)]) != string(want)):
			t.Errorf("Get(%q) = %d bytes %s, want %d bytes %s", k, n[i], describe(bufs[i][:max(n[i], 0)]), len(want), describe(want))
		}
	}
	small := [][]byte{make([]byte, 1)}
	if err := s.Get(context.Background(), []string{"ro/b"}, small, n[:1]); err != nil || n[0] != int64(pool.InvalidParams) {
		t.Errorf("Get(ro/b into 1 byte) = %v, n %d, want nil, n %d", err, n[0], pool.InvalidParams)
	}
}

func testReadOnlyList(t *testing.T, s pool.Store, seed map[string][]byte) {
	l, ok := s.(pool.Lister)
	if !ok {
		t.Skip("backend does not implement pool.Lister")
	}
	for _, prefix := range []string{"", "ro/", "ro/dir/", "none/"} {
		var got []string
		if err := l.List(context.Background(), prefix, func(k string) error { got = append(got, k); return nil }); err != nil {
			t.Fatalf("List(%q) = %v, want nil", prefix, err)
		}
		var want []string
		for k := range seed {
			if strings.HasPrefix(k, prefix) {
				want = append(want, k)
			}
		}
		if got, want := sorted(got), sorted(want); !slices.Equal(got, want) {
			t.Errorf("List(%q) = %q, want %q", prefix, got, want)
		}
	}
}

func testWritesRefused(t *testing.T, s pool.Store, seed map[string][]byte) {
	ctx := context.Background()
	items := []pool.PutItem{item("ro/new", []byte("v")), item("ro/a", []byte("v"))}
	if err := s.Put(ctx, items, make([]pool.Code, len(items))); !errors.Is(err, pool.ErrReadOnly) {
		t.Errorf("Put = %v, want an error wrapping pool.ErrReadOnly", err)
	}
	for _, force := range []bool{false, true} {
		if err := s.Remove(ctx, []string{"ro/a"}, force, make([]pool.Code, 1)); !errors.Is(err, pool.ErrReadOnly) {
			t.Errorf("Remove(force=%t) = %v, want an error wrapping pool.ErrReadOnly", force, err)
		}
	}
	st := make([]int, 2)
	if err := s.Exist(ctx, []string{"ro/a", "ro/new"}, st); err != nil || !slices.Equal(st, []int{1, 0}) {
		t.Errorf("Exist(ro/a, ro/new) after refused writes = %v, %v, want [1 0], nil", st, err)
	}
}

func testReportsReadOnly(t *testing.T, s pool.Store, seed map[string][]byte) {
	if ro, ok := s.(pool.ReadOnly); ok && !ro.ReadOnly() {
		t.Errorf("ReadOnly() = false, want true")
	}
	st, err := s.Stat(context.Background())
	if err != nil {
		t.Fatalf("Stat() = %v, want nil", err)
	}
	if !st.ReadOnly {
		t.Errorf("Stat().ReadOnly = false, want true")
	}
	if st.Backend == "" {
		t.Errorf("Stat().Backend = %q, want the backend's name", st.Backend)
	}
	if st.Keys != 0 && st.Keys != int64(len(seed)) {
		t.Errorf("Stat().Keys = %d, want %d (or 0 when unknown)", st.Keys, len(seed))
	}
}

func testReadOnlyBatchEdges(t *testing.T, s pool.Store, _ map[string][]byte) {
	ctx := context.Background()
	if err := s.Exist(ctx, nil, nil); err != nil {
		t.Errorf("Exist(empty batch) = %v, want nil", err)
	}
	if err := callNoPanic(func() error { return s.Exist(ctx, []string{"ro/a", "ro/b"}, make([]int, 1)) }); err == nil || errors.Is(err, errPanicked) {
		t.Errorf("Exist with mismatched slice lengths = %v, want an error", err)
	}
	if err := callNoPanic(func() error { return s.Get(ctx, []string{"ro/a"}, nil, make([]int64, 1)) }); err == nil || errors.Is(err, errPanicked) {
		t.Errorf("Get with mismatched slice lengths = %v, want an error", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := callNoPanic(func() error { return s.Exist(canceled, []string{"ro/a"}, make([]int, 1)) }); !errors.Is(err, context.Canceled) {
		t.Errorf("Exist(canceled context) = %v, want an error wrapping context.Canceled", err)
	}
}
