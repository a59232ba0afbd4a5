package redis

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// benchTargets are the real servers named by the environment; benchmarks
// against miniredis would measure miniredis.
func benchTargets(b *testing.B) []target {
	var out []target
	for _, tg := range targets()[1:] {
		env := envServer
		if tg.name == "cluster" {
			env = envCluster
		}
		if os.Getenv(env) != "" {
			out = append(out, tg)
		}
	}
	if len(out) == 0 {
		b.Skipf("set %s (and/or %s) to benchmark against a real server", envServer, envCluster)
	}
	return out
}

// benchStore opens a target for a benchmark, with a namespace cleaned up
// afterwards.
func benchStore(b *testing.B, tg target) (*Store, string) {
	s := mustOpenB(b, os.Getenv(map[string]string{"server": envServer, "cluster": envCluster}[tg.name]))
	return s, fmt.Sprintf("kvctlbench-%d/", os.Getpid())
}

func mustOpenB(b *testing.B, raw string) *Store {
	b.Helper()
	s, err := pool.Open(context.Background(), raw)
	if err != nil {
		b.Fatalf("Open(%q) = %v", raw, err)
	}
	b.Cleanup(func() { s.Close() })
	return s.(*Store)
}

func benchRemove(b *testing.B, s *Store, keys []string) {
	b.Helper()
	if err := s.Remove(context.Background(), keys, true, make([]pool.Code, len(keys))); err != nil {
		b.Fatalf("Remove = %v", err)
	}
}

// BenchmarkExist probes 1000 keys per call, half of them present.
func BenchmarkExist(b *testing.B) {
	for _, tg := range benchTargets(b) {
		b.Run(tg.name, func(b *testing.B) {
			s, ns := benchStore(b, tg)
			const batch = 1000
			keys := make([]string, batch)
			var items []pool.PutItem
			for i := range keys {
				keys[i] = fmt.Sprintf("%strtllm/m/w1r0/lg0/t32b65536/%032x", ns, i)
				if i%2 == 0 {
					items = append(items, pool.PutItem{Key: keys[i], Value: []byte{1}})
				}
			}
			if err := s.Put(context.Background(), items, make([]pool.Code, len(items))); err != nil {
				b.Fatal(err)
			}
			defer benchRemove(b, s, keys)
			status := make([]int, batch)
			b.ResetTimer()
			for b.Loop() {
				if err := s.Exist(context.Background(), keys, status); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}

// BenchmarkPut64KiB stores batches of new 64 KiB values.
func BenchmarkPut64KiB(b *testing.B) {
	for _, tg := range benchTargets(b) {
		for _, batch := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/batch=%d", tg.name, batch), func(b *testing.B) {
				s, ns := benchStore(b, tg)
				v := make([]byte, 64<<10)
				b.SetBytes(int64(batch * len(v)))
				var written []string
				res := make([]pool.Code, batch)
				items := make([]pool.PutItem, batch)
				n := 0
				for b.Loop() {
					for j := range items {
						items[j] = pool.PutItem{Key: fmt.Sprintf("%sput/%08d", ns, n), Value: v}
						written = append(written, items[j].Key)
						n++
					}
					if err := s.Put(context.Background(), items, res); err != nil || res[0] != pool.OK {
						b.Fatalf("Put = %v, %v", res[0], err)
					}
					if len(written) >= 1024 {
						b.StopTimer()
						benchRemove(b, s, written)
						written = written[:0]
						b.StartTimer()
					}
				}
				benchRemove(b, s, written)
			})
		}
	}
}

// BenchmarkGet64KiB reads batches of 64 KiB values into caller buffers.
func BenchmarkGet64KiB(b *testing.B) {
	for _, tg := range benchTargets(b) {
		for _, batch := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/batch=%d", tg.name, batch), func(b *testing.B) {
				s, ns := benchStore(b, tg)
				keys := make([]string, batch)
				items := make([]pool.PutItem, batch)
				bufs := make([][]byte, batch)
				for i := range keys {
					keys[i] = fmt.Sprintf("%sget/%08d", ns, i)
					items[i] = pool.PutItem{Key: keys[i], Value: make([]byte, 64<<10)}
					bufs[i] = make([]byte, 64<<10)
				}
				if err := s.Put(context.Background(), items, make([]pool.Code, batch)); err != nil {
					b.Fatal(err)
				}
				defer benchRemove(b, s, keys)
				n := make([]int64, batch)
				b.SetBytes(int64(batch * 64 << 10))
				for b.Loop() {
					if err := s.Get(context.Background(), keys, bufs, n); err != nil || n[0] != 64<<10 {
						b.Fatalf("Get = %d, %v", n[0], err)
					}
				}
			})
		}
	}
}
