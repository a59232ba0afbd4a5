package mem

import (
	"slices"

	"github.com/kvctl/kvctl/internal/stdhash"
)

// MetadataShards is the Mooncake master's number of metadata shards
// (kNumShards, master_service.h:1612). A key's shard is
// std::hash<std::string>(key) % MetadataShards, or its eviction group's
// id's when it is grouped (getShardIndex, master_service.h:1819-1832;
// BatchExistKey routes grouped keys by object_group_ids_,
// master_service.cpp:2800-2810).
const MetadataShards = 1024

// KeyShard is key's metadata shard on the master.
func KeyShard(key string) int { return int(stdhash.String(key) % MetadataShards) }

// shardOf is o's metadata shard, its group's when grouped, computed once.
func (s *Store) shardOf(o *object) uint32 {
	if g := o.group(); g != nil {
		return uint32(KeyShard(g.id))
	}
	if v := o.shard.Load(); v != 0 {
		return v - 1
	}
	var buf [256]byte
	key := s.keys.appendKey(buf[:0], o.key)
	v := uint32(stdhash.Bytes(key, stdhash.Seed) % MetadataShards)
	o.shard.Store(v + 1)
	return v
}

// drawShard is the next random start shard (the master's
// randomIndex(kNumShards)): a SplitMix64 stream keyed by Options.Seed, so
// that a run's draws, in call order, depend on the seed only.
func (s *Store) drawShard() uint32 {
	z := s.opts.Seed + s.draws.Add(1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return uint32((z ^ z>>31) % MetadataShards)
}

// leaseScratch is one call's lookups and walk order, recycled.
type leaseScratch struct {
	objs       []*object
	order, tmp []uint64
}

var leaseScratches = newRecycler[leaseScratch]()

func getLeaseScratch(n int) *leaseScratch {
	sc := leaseScratches.get()
	sc.objs = slices.Grow(sc.objs[:0], n)[:n]
	return sc
}

func putLeaseScratch(sc *leaseScratch) {
	clear(sc.objs)
	if cap(sc.objs) <= maxPooledHold {
		leaseScratches.put(sc)
	}
}

// grantLeases leases the present objects of one call (nil entries are
// absent keys) as the master's BatchExistKey and BatchGetReplicaList do
// (master_service.cpp:2813-2855, 3791-3870): it walks the metadata shards
// downwards from a random start shard, wrapping at 0, visiting a shard's
// keys in request order, and each grant reads the clock anew
// (GrantReadLease, master_service.h:1302), so one call's deadlines are
// distinct and increase along the walk. kvctl's clock may stand still for
// a whole call (a virtual clock), so grant i of a call gets
// max(now + LeaseTTL, the store's last deadline + 1ns) + i ns: deadlines
// are distinct and increase in grant order across calls too, and run
// ahead of now + LeaseTTL by at most a nanosecond per grant made within
// one tick of the clock. The caller holds s.mu shared.
func (s *Store) grantLeases(objs []*object, sc *leaseScratch) {
	order := sc.order[:0]
	for i, o := range objs {
		if o != nil {
			order = append(order, uint64(i))
		}
	}
	if len(order) == 0 {
		return
	}
	if len(order) > 1 {
		start := s.drawShard()
		for j, i := range order {
			rank := (start + MetadataShards - s.shardOf(objs[i])) % MetadataShards
			order[j] = uint64(rank)<<32 | i
		}
		sc.tmp = slices.Grow(sc.tmp[:0], len(order))
		sortWalk(order, sc.tmp)
	}
	g := s.beginGrants()
	for _, v := range order {
		g.lease(objs[uint32(v)])
	}
	s.endGrants(g)
	sc.order = order[:0]
}

// grantLease is grantLeases for one object.
func (s *Store) grantLease(o *object) {
	g := s.beginGrants()
	g.lease(o)
	s.endGrants(g)
}

// grants is one call's run of lease deadlines.
type grants struct {
	s    *Store
	now  int64
	next int64 // the next deadline to grant
}

func (s *Store) beginGrants() grants {
	now := s.nowNanos()
	return grants{s: s, now: now, next: max(now+int64(s.opts.LeaseTTL), s.lastGrant.Load()+1)}
}

// endGrants records the call's last deadline as the store's latest.
func (s *Store) endGrants(g grants) {
	last := g.next - 1
	for {
		cur := s.lastGrant.Load()
		if cur >= last || s.lastGrant.CompareAndSwap(cur, last) {
			return
		}
	}
}

// lease is the master's GrantLeaseForGroup (master_service.cpp:2448-2487):
// an ungrouped object's lease becomes max(lease, deadline); a grouped one's
// whole group is leased, member by member, but only when the object's
// lease is within LeaseTTL/2 of now (NeedsReadLeaseRefresh,
// master_service.h:1310) or a member joined since the group's last grant;
// otherwise the read grants no lease at all.
func (g *grants) lease(o *object) {
	if o.group() == nil {
		extendLease(o, g.next)
		g.next++
		return
	}
	s := g.s
	s.groupsMu.Lock()
	defer s.groupsMu.Unlock()
	grp := o.group()
	if o.lease.Load() > g.now+int64(s.opts.LeaseTTL)/2 && !grp.needsLease {
		return
	}
	for _, m := range grp.members {
		extendLease(m, g.next)
		g.next++
	}
	grp.needsLease = false
}
