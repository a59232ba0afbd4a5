package redis

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// startRedisServer starts a redis-server of the test's own on a free
// 127.0.0.1 port (skipping the test when none is installed) and returns
// its URL. Tests that reconfigure the server (maxmemory, policy) use it
// rather than a shared server.
func startRedisServer(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server); needed for tests that reconfigure the server")
	}
	addr := closedPort(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "redis://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not listen on %s within 5s", addr)
		}
	}
}

func configSet(t *testing.T, s *Store, name, value string) {
	t.Helper()
	if err := s.client.Do(context.Background(), s.client.B().ConfigSet().ParameterValue().ParameterValue(name, value).Build()).Error(); err != nil {
		t.Fatalf("CONFIG SET %s %s = %v", name, value, err)
	}
}

func TestPutOutOfMemory(t *testing.T) {
	s := mustOpen(t, startRedisServer(t, "--maxmemory-policy", "noeviction"))
	configSet(t, s, "maxmemory", "1")
	items := []pool.PutItem{{Key: "a/1", Value: []byte("x")}, {Key: "a/2", Value: make([]byte, 1000)}}
	got := make([]pool.Code, len(items))
	if err := s.Put(context.Background(), items, got); err != nil {
		t.Fatalf("Put over maxmemory = %v, want per-key codes", err)
	}
	for i, c := range got {
		if c != pool.NoAvailableHandle {
			t.Errorf("Put(%q) over maxmemory = %v, want NO_AVAILABLE_HANDLE", items[i].Key, c)
		}
	}
	st := make([]int, 2)
	if err := s.Exist(context.Background(), []string{"a/1", "a/2"}, st); err != nil || st[0] != 0 || st[1] != 0 {
		t.Errorf("Exist after refused puts = %v, %v, want [0 0], nil", st, err)
	}
}

// fillPast writes 64 KiB values until maxmemory has been passed several
// times over, returning the codes seen.
func fillPast(t *testing.T, s *Store, prefix string, n int) map[pool.Code]int {
	t.Helper()
	codes := map[pool.Code]int{}
	v := make([]byte, 64<<10)
	for i := 0; i < n; i += 8 {
		items := make([]pool.PutItem, 8)
		for j := range items {
			items[j] = pool.PutItem{Key: fmt.Sprintf("%s/%05d", prefix, i+j), Value: v}
		}
		res := make([]pool.Code, len(items))
		if err := s.Put(context.Background(), items, res); err != nil {
			t.Fatalf("Put = %v", err)
		}
		for _, c := range res {
			codes[c]++
		}
	}
	return codes
}

func TestVolatilePinsKeepHardPinned(t *testing.T) {
	tests := []struct {
		pins string
		// wantEvict: Redis evicts unpinned keys; otherwise nothing is
		// evictable and puts fail with NO_AVAILABLE_HANDLE.
		wantEvict bool
	}{
		{"volatile", true},
		{"none", false},
	}
	for _, tt := range tests {
		t.Run(tt.pins, func(t *testing.T) {
			s := mustOpen(t, startRedisServer(t, "--maxmemory-policy", "volatile-lru")+"?pins="+tt.pins)
			before, err := s.Stat(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			limit := before.UsedBytes + 4<<20
			configSet(t, s, "maxmemory", strconv.FormatInt(limit, 10))
			pinned := pool.PutItem{Key: "blk/pinned", Value: make([]byte, 64<<10), Options: pool.PutOptions{HardPin: true}}
			if res := make([]pool.Code, 1); s.Put(context.Background(), []pool.PutItem{pinned}, res) != nil || res[0] != pool.OK {
				t.Fatalf("Put(hard-pinned) = %v", res[0])
			}
			codes := fillPast(t, s, "blk/fill", 256) // 16 MiB into 4 MiB of room
			refused := codes[pool.NoAvailableHandle]
			if codes[pool.OK]+refused != 256 || (refused > 0) == tt.wantEvict {
				t.Errorf("pins=%s: filling past maxmemory gave %v, want OK and NO_AVAILABLE_HANDLE: %v", tt.pins, codes, !tt.wantEvict)
			}
			st := make([]int, 1)
			if err := s.Exist(context.Background(), []string{pinned.Key}, st); err != nil || st[0] != 1 {
				t.Errorf("pins=%s: Exist(hard-pinned) after filling = %v, %v, want 1", tt.pins, st[0], err)
			}
			after, err := s.Stat(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if (after.EvictedKeys > 0) != tt.wantEvict || after.CapacityBytes != limit {
				t.Errorf("pins=%s: Stat() evicted %d, capacity %d, want evictions %v, capacity %d",
					tt.pins, after.EvictedKeys, after.CapacityBytes, tt.wantEvict, limit)
			}
		})
	}
}
