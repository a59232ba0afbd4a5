package mem

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

func TestLeases(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, LeaseTTL: 3 * time.Second})
	mustPut(t, s, sized("got", 8, pool.PutOptions{}), sized("idle", 8, pool.PutOptions{}))
	start := clock.Now()
	getKeys(t, s, 8, "got")
	keys := []string{"got", "idle", "absent"}
	leases := func() []time.Time {
		t.Helper()
		until := make([]time.Time, len(keys))
		if err := s.Leases(context.Background(), keys, until); err != nil {
			t.Fatalf("Leases(%q) = %v", keys, err)
		}
		return until
	}
	want := []time.Time{start.Add(3 * time.Second), {}, {}}
	if diff := cmp.Diff(want, leases(), cmp.Comparer(time.Time.Equal)); diff != "" {
		t.Errorf("Leases(%q) after a get: (-want +got)\n%s", keys, diff)
	}
	clock.Advance(3 * time.Second)
	if diff := cmp.Diff(make([]time.Time, 3), leases(), cmp.Comparer(time.Time.Equal)); diff != "" {
		t.Errorf("Leases(%q) once the lease expired: (-want +got)\n%s", keys, diff)
	}
	if got := s.LeaseTTL(); got != 3*time.Second {
		t.Errorf("LeaseTTL() = %v, want 3s", got)
	}
}
