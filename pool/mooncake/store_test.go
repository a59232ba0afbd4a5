package mooncake

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// fastOptions keep the tests' retries quick.
var fastOptions = Options{Timeout: 2 * time.Second, Backoff: time.Millisecond}

// serve starts h and opens a client on it.
func serve(t *testing.T, h http.Handler, opts Options) (*Store, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s, err := New(context.Background(), srv.Listener.Addr().String(), opts)
	if err != nil {
		t.Fatalf("New(%s) = %v, want no error", srv.URL, err)
	}
	t.Cleanup(func() { s.Close() })
	return s, srv
}

// counting wraps h and counts requests per path.
type counting struct {
	h     http.Handler
	batch atomic.Int64
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/batch_query_keys" {
		c.batch.Add(1)
	}
	c.h.ServeHTTP(w, r)
}

func TestExist(t *testing.T) {
	odd := "sp ace+plus&amp=eq;semi%pct#hash\u00e9"
	f := newFakeStore("a", "b/c:d", odd, "trtllm/Qwen/Qwen3-8B/w1r0/lg0/t32b1048576/0123456789abcdef0123456789abcdef")
	c := &counting{h: NewMasterHandler(f)}
	opts := fastOptions
	opts.Chunk, opts.Parallel = 2, 2
	s, _ := serve(t, c, opts)
	keys := []string{"a", "nope", "b/c:d", odd, "", "x,y", "a", "trtllm/Qwen/Qwen3-8B/w1r0/lg0/t32b1048576/0123456789abcdef0123456789abcdef", "zz"}
	want := []int{1, 0, 1, 1, int(pool.InvalidParams), int(pool.InvalidParams), 1, 1, 0}
	got := make([]int, len(keys))
	if err := s.Exist(context.Background(), keys, got); err != nil {
		t.Fatalf("Exist(%q) = %v, want no error", keys, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Exist(%q) statuses (-want +got):\n%s", keys, diff)
	}
	// 6 distinct askable keys, 2 per request.
	if n := c.batch.Load(); n != 3 {
		t.Errorf("Exist of 6 distinct keys with chunk=2 sent %d /batch_query_keys requests, want 3", n)
	}
	if got := f.leaseCount("a"); got != 0 {
		t.Errorf("Exist granted %d leases on %q, want 0", got, "a")
	}
}

func TestExistMany(t *testing.T) {
	var keys []string
	for i := range 3000 {
		keys = append(keys, fmt.Sprintf("k%05d", i))
	}
	f := newFakeStore(keys[:1500]...)
	opts := fastOptions
	opts.Chunk = 64
	s, _ := serve(t, NewMasterHandler(f), opts)
	got := make([]int, len(keys))
	if err := s.Exist(context.Background(), keys, got); err != nil {
		t.Fatalf("Exist(3000 keys) = %v, want no error", err)
	}
	for i, st := range got {
		if want := map[bool]int{true: 1, false: 0}[i < 1500]; st != want {
			t.Fatalf("Exist(3000 keys)[%d] (%q) = %d, want %d", i, keys[i], st, want)
		}
	}
}

func TestExistLengthMismatch(t *testing.T) {
	s, _ := serve(t, NewMasterHandler(newFakeStore()), fastOptions)
	if err := s.Exist(context.Background(), []string{"a", "b"}, make([]int, 1)); err == nil {
		t.Errorf("Exist(2 keys, 1 status) = nil, want an error")
	}
}

func TestGetPutRemove(t *testing.T) {
	s, srv := serve(t, NewMasterHandler(newFakeStore("a")), fastOptions)
	ctx := context.Background()
	keys := []string{"a", "nope"}
	n := make([]int64, 2)
	err := s.Get(ctx, keys, make([][]byte, 2), n)
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Get(%q) = %v, want an error wrapping errors.ErrUnsupported", keys, err)
	}
	want := []int64{int64(pool.TransferFail), int64(pool.TransferFail)}
	if diff := cmp.Diff(want, n); diff != "" {
		t.Errorf("Get(%q) sizes (-want +got):\n%s", keys, diff)
	}
	addr := srv.Listener.Addr().String()
	for name, err := range map[string]error{
		"Put":    s.Put(ctx, []pool.PutItem{{Key: "k", Value: []byte("v")}}, make([]pool.Code, 1)),
		"Remove": s.Remove(ctx, []string{"a"}, true, make([]pool.Code, 1)),
	} {
		if !errors.Is(err, pool.ErrReadOnly) || !strings.Contains(err.Error(), addr) {
			t.Errorf("%s() = %v, want an error wrapping pool.ErrReadOnly naming %s", name, err, addr)
		}
	}
	if !s.ReadOnly() {
		t.Errorf("ReadOnly() = false, want true")
	}
}

func TestList(t *testing.T) {
	var keys []string
	for i := range 50000 {
		keys = append(keys, fmt.Sprintf("p%d/key-%06d", i%2, i))
	}
	s, _ := serve(t, NewMasterHandler(newFakeStore(keys...)), fastOptions)
	var got []string
	if err := s.List(context.Background(), "p1/", func(k string) error { got = append(got, k); return nil }); err != nil {
		t.Fatalf("List(p1/) = %v, want no error", err)
	}
	var want []string
	for _, k := range keys {
		if strings.HasPrefix(k, "p1/") {
			want = append(want, k)
		}
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List(p1/) (-want +got):\n%s", diff)
	}
	stop := errors.New("enough")
	calls := 0
	err := s.List(context.Background(), "", func(string) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("List with fn failing = %v after %d calls, want %v after 1", err, calls, stop)
	}
}

func TestStatRoundTrip(t *testing.T) {
	f := newFakeStore("a", "b", "c")
	f.stat = pool.Stat{UsedBytes: 192, CapacityBytes: 1 << 30, SoftPinnedKeys: 1, EvictedKeys: 9, EvictedBytes: 576,
		EvictionAttempts: 4, PutsExisting: 6, AllocationFailure: 2,
		Segments: []pool.Segment{{Name: "10.0.0.1:1234", CapacityBytes: 1 << 29, UsedBytes: 192}, {Name: "10.0.0.2:1234", CapacityBytes: 1 << 29}}}
	s, srv := serve(t, NewMasterHandler(f), fastOptions)
	got, err := s.Stat(context.Background())
	if err != nil {
		t.Fatalf("Stat() = %v, want no error", err)
	}
	want := f.stat
	want.Keys, want.Backend, want.Address, want.ReadOnly = 3, "mooncake", srv.Listener.Addr().String(), true
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stat() (-want +got):\n%s", diff)
	}
}

func TestStatWithoutSegmentsDetail(t *testing.T) {
	f := newFakeStore("a")
	f.stat = pool.Stat{Segments: []pool.Segment{{Name: "b", CapacityBytes: 100, UsedBytes: 1}, {Name: "a", CapacityBytes: 50}}}
	inner := NewMasterHandler(f)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/get_segments_detail" {
			http.NotFound(w, r)
			return
		}
		inner.ServeHTTP(w, r)
	})
	s, _ := serve(t, h, fastOptions)
	st, err := s.Stat(context.Background())
	if err != nil {
		t.Fatalf("Stat() = %v, want no error", err)
	}
	want := []pool.Segment{{Name: "a", CapacityBytes: 50}, {Name: "b", CapacityBytes: 100, UsedBytes: 1}}
	if diff := cmp.Diff(want, st.Segments); diff != "" {
		t.Errorf("Stat().Segments from /metrics (-want +got):\n%s", diff)
	}
}

func TestOpenURL(t *testing.T) {
	srv := httptest.NewServer(NewMasterHandler(newFakeStore("a")))
	defer srv.Close()
	raw := "mooncake://" + srv.Listener.Addr().String() + "?timeout=3s&chunk=2&parallel=1&retries=0&backoff=5ms"
	st, err := pool.Open(context.Background(), raw)
	if err != nil {
		t.Fatalf("pool.Open(%q) = %v, want no error", raw, err)
	}
	defer st.Close()
	s := st.(*Store)
	want := Options{Timeout: 3 * time.Second, Chunk: 2, Parallel: 1, Retries: 0, Backoff: 5 * time.Millisecond}
	got := s.opts
	got.HTTPClient = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pool.Open(%q) options (-want +got):\n%s", raw, diff)
	}
}
