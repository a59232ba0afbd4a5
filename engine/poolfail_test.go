package engine

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// dyingStore works for ok calls (exist, get, put), then fails every one as
// an unreachable pool does.
type dyingStore struct {
	pool.Store
	ok, calls atomic.Int64
}

func (d *dyingStore) fail() error {
	if d.calls.Add(1) > d.ok.Load() {
		return fmt.Errorf("redis at localhost:1: %w: connection refused", pool.ErrUnreachable)
	}
	return nil
}

func (d *dyingStore) Exist(ctx context.Context, k []string, s []int) error {
	if err := d.fail(); err != nil {
		return err
	}
	return d.Store.Exist(ctx, k, s)
}

func (d *dyingStore) ExistLeasing(ctx context.Context, k []string, s []int) error {
	if err := d.fail(); err != nil {
		return err
	}
	return d.Store.(pool.LeasingExister).ExistLeasing(ctx, k, s)
}

func (d *dyingStore) Get(ctx context.Context, k []string, b [][]byte, n []int64) error {
	if err := d.fail(); err != nil {
		return err
	}
	return d.Store.Get(ctx, k, b, n)
}

func (d *dyingStore) Put(ctx context.Context, it []pool.PutItem, r []pool.Code) error {
	if err := d.fail(); err != nil {
		return err
	}
	return d.Store.Put(ctx, it, r)
}

// TestPoolDiesMidRun: a pool that stops answering does not end the run
// (upstream's count_prefix_hit: a failed lookup is a miss; failed saves are
// dropped): every request completes, the report counts the failed calls
// and when they began, and the first failure of each kind is warned of
// through StatsLine.
func TestPoolDiesMidRun(t *testing.T) {
	tests := []struct {
		name      string
		ok        int64
		wantFails bool
	}{
		{"pool never fails", 1 << 40, false},
		{"pool dies after 60 calls", 60, true},
		{"pool down from the start", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, p := testConfig(t)
			d := &dyingStore{Store: p}
			d.ok.Store(tt.ok)
			cfg.Pool = d
			var lines []string
			cfg.StatsLine = func(l string) { lines = append(lines, l) }
			rep := runOK(t, cfg, biggerWorkload)
			if got := rep.PoolCallFailures > 0; got != tt.wantFails {
				t.Fatalf("pool_call_failures = %d, want failures %v", rep.PoolCallFailures, tt.wantFails)
			}
			if !tt.wantFails {
				if rep.FirstPoolFailureAtMS != nil || rep.FirstPoolFailureRequest != nil || len(lines) != 0 {
					t.Errorf("no failure: first at %v, request %v, lines %q; want nil, nil, none", rep.FirstPoolFailureAtMS, rep.FirstPoolFailureRequest, lines)
				}
				return
			}
			if rep.FirstPoolFailureAtMS == nil || rep.FirstPoolFailureRequest == nil || *rep.FirstPoolFailureRequest < 1 {
				t.Fatalf("first failure at %v ms, request %v; want both set, request >= 1", rep.FirstPoolFailureAtMS, rep.FirstPoolFailureRequest)
			}
			if want := d.calls.Load() - tt.ok; rep.PoolCallFailures != want {
				t.Errorf("pool_call_failures = %d, want %d (every call past the first %d)", rep.PoolCallFailures, want, tt.ok)
			}
			for _, call := range []string{"lookup", "save"} {
				if n := countPrefix(lines, "warning: pool "+call+" failed"); n != 1 {
					t.Errorf("%d warnings of a failed %s, want 1: %q", n, call, lines)
				}
			}
		})
	}
}

func countPrefix(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}
