package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/redis/rueidis"

	"github.com/kvctl/kvctl/pool"
)

func TestExist(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		putAll(t, s, map[string][]byte{ns + "a/1": []byte("x"), ns + "b/2": nil, ns + "{c}": []byte("z")})
		tests := []struct {
			name string
			keys []string
			want []int
		}{
			{"empty batch", nil, []int{}},
			{"present", []string{ns + "a/1"}, []int{1}},
			{"empty value present", []string{ns + "b/2"}, []int{1}},
			{"absent", []string{ns + "a/2"}, []int{0}},
			{"mixed and repeated", []string{ns + "a/1", ns + "nope", ns + "{c}", ns + "a/1"}, []int{1, 0, 1, 1}},
			{"prefix of a key is absent", []string{ns + "a/"}, []int{0}},
		}
		for _, tt := range tests {
			got := make([]int, len(tt.keys))
			if err := s.Exist(context.Background(), tt.keys, got); err != nil {
				t.Fatalf("%s: Exist(%q) = %v", tt.name, tt.keys, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: Exist(%q) status diff (-want +got):\n%s", tt.name, tt.keys, diff)
			}
		}
	})
}

func TestExistManyKeysOneBatch(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		kv := map[string][]byte{}
		keys := make([]string, 2000)
		want := make([]int, len(keys))
		for i := range keys {
			keys[i] = fmt.Sprintf("%sm/w1r0/lg0/t32b64/%032x", ns, i)
			if i%3 == 0 {
				kv[keys[i]] = []byte{byte(i)}
				want[i] = 1
			}
		}
		putAll(t, s, kv)
		got := make([]int, len(keys))
		if err := s.Exist(context.Background(), keys, got); err != nil {
			t.Fatalf("Exist(%d keys) = %v", len(keys), err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Exist(%d keys) diff (-want +got):\n%s", len(keys), diff)
		}
	})
}

func TestPutNeverOverwrites(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		ctx := context.Background()
		k := ns + "p/key"
		items := []pool.PutItem{
			{Key: k, Value: []byte("first")},
			{Key: k, Value: []byte("second")},
			{Key: ns + "p/other", Value: []byte("o")},
		}
		got := make([]pool.Code, len(items))
		if err := s.Put(ctx, items, got); err != nil {
			t.Fatalf("Put = %v", err)
		}
		want := []pool.Code{pool.OK, pool.ObjectAlreadyExists, pool.OK}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Put codes diff (-want +got):\n%s", diff)
		}
		again := []pool.PutItem{{Key: k, Value: []byte("third")}}
		if err := s.Put(ctx, again, got[:1]); err != nil || got[0] != pool.ObjectAlreadyExists {
			t.Errorf("Put(%q) again = %v, %v, want OBJECT_ALREADY_EXISTS, nil", k, got[0], err)
		}
		if v := mustGet(t, s, k, 64); string(v) != "first" {
			t.Errorf("Get(%q) = %q, want %q", k, v, "first")
		}
	})
}

func TestPutInvalidOptions(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		tests := []struct {
			name string
			item pool.PutItem
			want pool.Code
		}{
			{"soft pin above 24h", pool.PutItem{Options: pool.PutOptions{SoftPin: pool.SoftPinEnable, SoftPinTTL: 25 * time.Hour}}, pool.InvalidParams},
			{"negative soft pin", pool.PutItem{Options: pool.PutOptions{SoftPin: pool.SoftPinEnable, SoftPinTTL: -time.Second}}, pool.InvalidParams},
			{"unknown soft pin action", pool.PutItem{Options: pool.PutOptions{SoftPin: 7}}, pool.InvalidParams},
			{"metadata-only", pool.PutItem{Size: 10}, pool.InvalidParams},
			{"soft pin 24h exactly", pool.PutItem{Value: []byte("v"), Options: pool.PutOptions{SoftPin: pool.SoftPinEnable, SoftPinTTL: 24 * time.Hour}}, pool.OK},
			{"ttl ignored without enable", pool.PutItem{Value: []byte("v"), Options: pool.PutOptions{SoftPin: pool.SoftPinDisable, SoftPinTTL: 48 * time.Hour}}, pool.OK},
			{"hard pin and group", pool.PutItem{Value: []byte("v"), Options: pool.PutOptions{HardPin: true, GroupID: "g"}}, pool.OK},
		}
		for i, tt := range tests {
			tt.item.Key = fmt.Sprintf("%sinv/%d", ns, i)
			got := make([]pool.Code, 1)
			if err := s.Put(context.Background(), []pool.PutItem{tt.item}, got); err != nil {
				t.Fatalf("%s: Put = %v", tt.name, err)
			}
			if got[0] != tt.want {
				t.Errorf("%s: Put(%+v) = %v, want %v", tt.name, tt.item.Options, got[0], tt.want)
			}
			st := make([]int, 1)
			if err := s.Exist(context.Background(), []string{tt.item.Key}, st); err != nil {
				t.Fatal(err)
			}
			if stored := tt.want == pool.OK; (st[0] == 1) != stored {
				t.Errorf("%s: Exist after Put = %d, want stored=%v", tt.name, st[0], stored)
			}
		}
	})
}

func mustGet(t *testing.T, s *Store, key string, size int) []byte {
	t.Helper()
	buf := make([]byte, size)
	n := make([]int64, 1)
	if err := s.Get(context.Background(), []string{key}, [][]byte{buf}, n); err != nil {
		t.Fatalf("Get(%q) = %v", key, err)
	}
	if n[0] < 0 {
		t.Fatalf("Get(%q) = %v", key, pool.Code(n[0]))
	}
	return buf[:n[0]]
}

func TestGet(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		binary := make([]byte, 256)
		for i := range binary {
			binary[i] = byte(i)
		}
		large := bytes.Repeat([]byte("0123456789abcdef\r\n\x00"), 4<<20/18)[:4<<20]
		putAll(t, s, map[string][]byte{ns + "bin": binary, ns + "large": large, ns + "empty": {}, ns + "small": []byte("hello")})
		tests := []struct {
			key   string
			buf   int
			wantN int64
			want  []byte
		}{
			{ns + "bin", 256, 256, binary},
			{ns + "bin", 1000, 256, binary},
			{ns + "large", 4 << 20, 4 << 20, large},
			{ns + "empty", 0, 0, []byte{}},
			{ns + "small", 4, int64(pool.InvalidParams), nil},
			{ns + "missing", 10, int64(pool.ObjectNotFound), nil},
		}
		keys := make([]string, len(tests))
		bufs := make([][]byte, len(tests))
		for i, tt := range tests {
			keys[i], bufs[i] = tt.key, make([]byte, tt.buf)
		}
		n := make([]int64, len(tests))
		if err := s.Get(context.Background(), keys, bufs, n); err != nil {
			t.Fatalf("Get = %v", err)
		}
		for i, tt := range tests {
			if n[i] != tt.wantN {
				t.Errorf("Get(%q, buf %d) n = %d, want %d", tt.key, tt.buf, n[i], tt.wantN)
				continue
			}
			if tt.want != nil && !bytes.Equal(bufs[i][:n[i]], tt.want) {
				t.Errorf("Get(%q) bytes differ from what was put", tt.key)
			}
		}
	})
}

func TestRemove(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		ctx := context.Background()
		putAll(t, s, map[string][]byte{ns + "r/1": []byte("a"), ns + "r/2": []byte("b")})
		keys := []string{ns + "r/1", ns + "r/missing", ns + "r/2", ns + "r/1"}
		got := make([]pool.Code, len(keys))
		if err := s.Remove(ctx, keys, false, got); err != nil {
			t.Fatalf("Remove = %v", err)
		}
		want := []pool.Code{pool.OK, pool.ObjectNotFound, pool.OK, pool.ObjectNotFound}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Remove codes diff (-want +got):\n%s", diff)
		}
		st := make([]int, 2)
		if err := s.Exist(ctx, []string{ns + "r/1", ns + "r/2"}, st); err != nil || st[0] != 0 || st[1] != 0 {
			t.Errorf("Exist after Remove = %v, %v, want [0 0], nil", st, err)
		}
		putAll(t, s, map[string][]byte{ns + "r/1": []byte("again")})
		if v := mustGet(t, s, ns+"r/1", 16); string(v) != "again" {
			t.Errorf("Get after remove and put = %q, want %q", v, "again")
		}
	})
}

func TestLengthMismatch(t *testing.T) {
	s := openMiniredis(t)
	ctx := context.Background()
	errs := map[string]error{
		"exist":  s.Exist(ctx, []string{"a", "b"}, make([]int, 1)),
		"put":    s.Put(ctx, []pool.PutItem{{Key: "a"}}, nil),
		"get":    s.Get(ctx, []string{"a"}, [][]byte{nil}, nil),
		"remove": s.Remove(ctx, []string{"a"}, false, make([]pool.Code, 3)),
	}
	for op, err := range errs {
		if pool.CodeOf(err) != pool.InvalidParams {
			t.Errorf("%s with mismatched slices = %v, want INVALID_PARAMS", op, err)
		}
	}
}

func TestList(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		keys := []string{
			ns + "m/w1r0/lg0/t32b64/aa01", ns + "m/w1r0/lg0/t32b64/aa02", ns + "m/w1r0/lg1/t32b64/aa01",
			ns + "m/w1/aa01", ns + "n*[x]?/k", ns + "n*/k", ns + "odd{}%/x{y}%z", ns + "top",
		}
		kv := map[string][]byte{}
		for _, k := range keys {
			kv[k] = []byte("v")
		}
		putAll(t, s, kv)
		tests := []struct {
			prefix string
			want   []string
		}{
			{ns, keys},
			{ns + "m/w1r0/", keys[:3]},
			{ns + "m/w1r0/lg0/t32b64/aa0", keys[:2]},
			{ns + "m/w1", keys[:4]},
			{ns + "m/w1/", keys[3:4]},
			{ns + "n*[x]?/", keys[4:5]},
			{ns + "n*", keys[4:6]},
			{ns + "odd{}%/x{", keys[6:7]},
			{ns + "t", keys[7:8]},
			{ns + "zzz", nil},
		}
		for _, tt := range tests {
			got := listAll(t, s, tt.prefix)
			want := append([]string(nil), tt.want...)
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("List(%q) diff (-want +got):\n%s", tt.prefix, diff)
			}
		}
	})
}

func listAll(t *testing.T, s *Store, prefix string) []string {
	t.Helper()
	var got []string
	if err := s.List(context.Background(), prefix, func(k string) error { got = append(got, k); return nil }); err != nil {
		t.Fatalf("List(%q) = %v", prefix, err)
	}
	sort.Strings(got)
	return got
}

func TestListStopsAtCallbackError(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		putAll(t, s, map[string][]byte{ns + "1": nil, ns + "2": nil, ns + "3": nil})
		stop := errors.New("stop")
		calls := 0
		err := s.List(context.Background(), ns, func(string) error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("List with failing callback = %v after %d calls, want stop after 1", err, calls)
		}
	})
}

func TestListSkipsForeignKeys(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		foreign := []string{ns + "raw", ns + "a/{b}/c", ns + "a/{b%zz}", ns + "x{y}"}
		for _, k := range foreign {
			if err := s.client.Do(context.Background(), s.client.B().Set().Key(k).Value("v").Build()).Error(); err != nil {
				t.Fatalf("SET %q = %v", k, err)
			}
		}
		t.Cleanup(func() {
			for _, k := range foreign {
				s.client.Do(context.Background(), s.client.B().Del().Key(k).Build())
			}
		})
		putAll(t, s, map[string][]byte{ns + "mine": []byte("v")})
		if diff := cmp.Diff([]string{ns + "mine"}, listAll(t, s, ns)); diff != "" {
			t.Errorf("List(%q) diff (-want +got):\n%s", ns, diff)
		}
	})
}

func TestStat(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, fresh bool) {
		putAll(t, s, map[string][]byte{ns + "1": []byte("a"), ns + "2": []byte("b"), ns + "3": []byte("c")})
		st, err := s.Stat(context.Background())
		if err != nil {
			t.Fatalf("Stat = %v", err)
		}
		if st.Backend != "redis" || st.Address != s.addr || len(st.Segments) == 0 {
			t.Errorf("Stat() = %+v, want backend redis, address %s, segments", st, s.addr)
		}
		if fresh && st.Keys != 3 || st.Keys < 3 {
			t.Errorf("Stat().Keys = %d, want 3 (at least 3 on a shared server)", st.Keys)
		}
		var used int64
		for _, seg := range st.Segments {
			used += seg.UsedBytes
		}
		if used != st.UsedBytes {
			t.Errorf("Stat() segments use %d bytes, total says %d", used, st.UsedBytes)
		}
		if !fresh && st.UsedBytes <= 0 {
			t.Errorf("Stat().UsedBytes = %d, want > 0 from INFO used_memory", st.UsedBytes)
		}
	})
}

func TestPins(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		soft := pool.PutOptions{SoftPin: pool.SoftPinEnable, SoftPinTTL: time.Hour}
		softDefault := pool.PutOptions{SoftPin: pool.SoftPinEnable}
		hard := pool.PutOptions{HardPin: true, SoftPin: pool.SoftPinEnable}
		tests := []struct {
			pins pinMode
			opts pool.PutOptions
			want time.Duration // PTTL; -1 is no expiry
		}{
			{pinsNone, pool.PutOptions{}, -1},
			{pinsNone, soft, -1},
			{pinsNone, hard, -1},
			{pinsVolatile, pool.PutOptions{}, farExpiry},
			{pinsVolatile, soft, farExpiry + time.Hour},
			{pinsVolatile, softDefault, farExpiry + DefaultSoftPinTTL},
			{pinsVolatile, hard, -1},
		}
		for i, tt := range tests {
			s.pins = tt.pins
			k := fmt.Sprintf("%spin/%d", ns, i)
			res := make([]pool.Code, 1)
			if err := s.Put(context.Background(), []pool.PutItem{{Key: k, Value: []byte("v"), Options: tt.opts}}, res); err != nil || res[0] != pool.OK {
				t.Fatalf("Put(%q, %+v) = %v, %v", k, tt.opts, res[0], err)
			}
			ms, err := s.client.Do(context.Background(), s.client.B().Pttl().Key(storedKey(k)).Build()).AsInt64()
			if err != nil {
				t.Fatalf("PTTL %q = %v", k, err)
			}
			got := time.Duration(ms) * time.Millisecond
			if tt.want < 0 && ms != -1 || tt.want > 0 && (got > tt.want || got < tt.want-time.Minute) {
				t.Errorf("pins=%d Put(%+v): PTTL = %d ms, want %v", tt.pins, tt.opts, ms, tt.want)
			}
		}
	})
}

func TestWholeBatchFailsWhenServerGone(t *testing.T) {
	m := miniredis.RunT(t)
	addr := m.Addr()
	u, _ := url.Parse("redis://" + addr)
	cfg, err := parseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	cfg.readRetries = 3 // keep the test fast; the default rides out about 2 s
	s, err := openConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	status := make([]int, 2)
	err = s.Exist(ctx, []string{"a", "b"}, status)
	if !errors.Is(err, pool.ErrUnreachable) || !strings.Contains(err.Error(), addr) {
		t.Errorf("Exist on a closed server = %v, want an error wrapping ErrUnreachable naming %s", err, addr)
	}
	for i, st := range status {
		if st >= 0 {
			t.Errorf("Exist on a closed server: status[%d] = %d, want a negative code", i, st)
		}
	}
	if !s.down.Load() {
		t.Error("after a call failed for want of the server, the store is not marked down: later reads would ride out the retries")
	}
	if err := m.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := s.Exist(ctx, []string{"a", "b"}, status); err != nil {
		t.Fatalf("Exist after the server came back = %v", err)
	}
	if s.down.Load() {
		t.Error("after a call was answered again, the store is still marked down")
	}
}

func TestBackoffGivesUpAtOnceWhileDown(t *testing.T) {
	down := new(atomic.Bool)
	delay := boundedBackoff(3, down)
	if d := delay(1, rueidis.Completed{}, nil); d < 0 {
		t.Errorf("retry delay of attempt 1 while up = %v, want a wait", d)
	}
	if d := delay(4, rueidis.Completed{}, nil); d != -1 {
		t.Errorf("retry delay of attempt 4 of 3 = %v, want -1 (give up)", d)
	}
	down.Store(true)
	if d := delay(1, rueidis.Completed{}, nil); d != -1 {
		t.Errorf("retry delay of attempt 1 while down = %v, want -1 (give up)", d)
	}
}

func TestCanceledContext(t *testing.T) {
	s := openMiniredis(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Exist(ctx, []string{"a"}, make([]int, 1))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Exist with a canceled context = %v, want context.Canceled", err)
	}
}
