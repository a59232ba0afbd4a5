package engine

import (
	"context"
	"testing"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// TestEvictFunc: the engine runs the eviction step of a pool that leaves it
// to its owner (a pool.Evicter in manual mode), and of no other.
func TestEvictFunc(t *testing.T) {
	open := func(o mem.Options) *mem.Store {
		s, err := mem.New(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	manual := open(mem.Options{Capacity: 1 << 20, Segments: 1, Eviction: mem.EvictManual})
	tests := []struct {
		name string
		p    pool.Store
		want bool
	}{
		{"manual mem pool", manual, true},
		{"background mem pool", open(mem.Options{Capacity: 1 << 20, Segments: 1}), false},
		{"no Evicter", struct{ pool.Store }{manual}, false},
	}
	for _, tt := range tests {
		if got := evictFunc(tt.p) != nil; got != tt.want {
			t.Errorf("evictFunc(%s) != nil = %v, want %v", tt.name, got, tt.want)
		}
	}
	// The step it returns is the pool's: above the watermark, it evicts.
	ctx := context.Background()
	res := make([]pool.Code, 1)
	for i := range 15 {
		if err := manual.Put(ctx, []pool.PutItem{{Key: string(rune('a' + i)), Value: make([]byte, 64<<10)}}, res); err != nil || res[0] != pool.OK {
			t.Fatalf("Put %d = %v, %v", i, res[0], err)
		}
	}
	evictFunc(manual)()
	if st, err := manual.Stat(ctx); err != nil || st.EvictedKeys == 0 {
		t.Errorf("after the step at %d%% used: %d keys evicted, %v; want some", 15*100/16, st.EvictedKeys, err)
	}
}
