package mem

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// leaseOrder returns keys sorted by their lease deadline, failing when two
// deadlines are equal.
func leaseOrder(t *testing.T, s *Store, keys []string) []string {
	t.Helper()
	byLease := map[int64]string{}
	for _, k := range keys {
		d := s.lookupPublished(k).lease.Load()
		if other, dup := byLease[d]; dup {
			t.Fatalf("%q and %q share the deadline %d", k, other, d)
		}
		byLease[d] = k
	}
	var out []string
	for _, d := range slices.Sorted(func(yield func(int64) bool) {
		for d := range byLease {
			if !yield(d) {
				return
			}
		}
	}) {
		out = append(out, byLease[d])
	}
	return out
}

// walkOrder is the master's order of keys from start: shards downwards,
// wrapping at 0, request order inside a shard.
func walkOrder(keys []string, start int) []string {
	out := slices.Clone(keys)
	rank := func(k string) int { return (start - KeyShard(k) + MetadataShards) % MetadataShards }
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// TestLeasingReadsWalkShards checks that each leasing read grants its keys
// distinct deadlines in the master's shard walk from the drawn start
// shard, for every kind of leasing read.
func TestLeasingReadsWalkShards(t *testing.T) {
	ctx := context.Background()
	keys := keysN("c", 64)
	reads := map[string]func(s *Store){
		"ExistLeasing": func(s *Store) { s.ExistLeasing(ctx, keys, make([]int, len(keys))) },
		"Get": func(s *Store) {
			bufs := make([][]byte, len(keys))
			for i := range bufs {
				bufs[i] = make([]byte, 8)
			}
			s.Get(ctx, keys, bufs, make([]int64, len(keys)))
		},
		"Sizes": func(s *Store) { s.Sizes(ctx, keys, make([]int64, len(keys))) },
		"ViewBatch": func(s *Store) {
			s.ViewBatch(keys, make([][]byte, len(keys)), make([]pool.Code, len(keys)))()
		},
	}
	for name, read := range reads {
		for _, seed := range []uint64{0, 1, 2, 99} {
			s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, Seed: seed})
			for _, k := range keys {
				mustPut(t, s, sized(k, 8, pool.PutOptions{}))
			}
			read(s)
			twin, _ := newTestStore(t, Options{Capacity: 1 << 20, Seed: seed})
			start := int(twin.drawShard())
			if diff := cmp.Diff(walkOrder(keys, start), leaseOrder(t, s, keys)); diff != "" {
				t.Errorf("%s, seed %d: lease order differs from the walk from shard %d (-want +got):\n%s", name, seed, start, diff)
			}
		}
	}
}

// TestLeaseDeadlinesIncreaseAcrossCalls checks that calls at the same
// instant still grant increasing deadlines, each at least now + TTL.
func TestLeaseDeadlinesIncreaseAcrossCalls(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, LeaseTTL: time.Second})
	mustPut(t, s, sized("a", 8, pool.PutOptions{}), sized("b", 8, pool.PutOptions{}))
	present(t, s, "a")
	s.ExistLeasing(context.Background(), []string{"a"}, make([]int, 1))
	s.ExistLeasing(context.Background(), []string{"b"}, make([]int, 1))
	a, b := s.lookupPublished("a").lease.Load(), s.lookupPublished("b").lease.Load()
	floor := clock.Now().Add(time.Second).UnixNano()
	if a < floor || b <= a {
		t.Errorf("deadlines a=%d b=%d, want floor %d <= a < b", a, b, floor)
	}
}

// TestGroupLease is the master's GrantLeaseForGroup (fidelity spec P3,
// S3): the first read of a grouped key leases every member; a read less
// than TTL/2 later grants nothing; a member joining makes the next read
// lease the group again.
func TestGroupLease(t *testing.T) {
	ctx := context.Background()
	ttl := time.Second
	s, clock := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, LeaseTTL: ttl})
	g := pool.PutOptions{GroupID: "g"}
	mustPut(t, s, sized("a", 8, g), sized("b", 8, g))
	lease := func(k string) time.Duration {
		return time.Duration(s.lookupPublished(k).lease.Load() - clock.Now().UnixNano())
	}
	read := func(k string) { s.ExistLeasing(ctx, []string{k}, make([]int, 1)) }
	near := func(d, want time.Duration) bool { return d >= want && d < want+time.Microsecond }

	read("a")
	if !near(lease("a"), ttl) || !near(lease("b"), ttl) {
		t.Fatalf("after the first read of a: leases a %v, b %v, want both %v", lease("a"), lease("b"), ttl)
	}
	clock.Advance(200 * time.Millisecond)
	read("b")
	if want := ttl - 200*time.Millisecond; !near(lease("a"), want) || !near(lease("b"), want) {
		t.Errorf("a read within TTL/2 changed the leases: a %v, b %v, want both %v", lease("a"), lease("b"), want)
	}
	clock.Advance(400 * time.Millisecond) // 400 ms left: due for refresh
	read("b")
	if !near(lease("a"), ttl) || !near(lease("b"), ttl) {
		t.Errorf("a read past TTL/2: leases a %v, b %v, want both %v", lease("a"), lease("b"), ttl)
	}
	clock.Advance(100 * time.Millisecond)
	mustPut(t, s, sized("c", 8, g))
	read("a")
	for _, k := range []string{"a", "b", "c"} {
		if !near(lease(k), ttl) {
			t.Errorf("after c joined, a read left %s's lease at %v, want %v", k, lease(k), ttl)
		}
	}
}
