package mem

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/cpu"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/size"
)

var (
	_ pool.Store          = (*Store)(nil)
	_ pool.Lister         = (*Store)(nil)
	_ pool.LeasingExister = (*Store)(nil)
	_ pool.Sizer          = (*Store)(nil)
	_ pool.Snapshotter    = (*Store)(nil)
	_ pool.AllRemover     = (*Store)(nil)
	_ pool.Evicter        = (*Store)(nil)
	_ pool.ArenaHolder    = (*Store)(nil)
	_ pool.Viewer         = (*Store)(nil)
	_ pool.Reserver       = (*Store)(nil)
	_ pool.PartGetter     = (*Store)(nil)
)

// ErrClosed is returned by every method of a closed Store.
var ErrClosed = errors.New("mem pool is closed")

// group is an eviction group: its published members.
type group struct {
	id        string
	members   []*object
	skipEpoch uint64
	// needsLease says a member joined since the group's leases were last
	// granted (the master's groups_needing_lease_refresh_); guarded by
	// Store.groupsMu.
	needsLease bool
}

// counters are Stat's cumulative counters: the first two are bumped by
// Put and Reserve under Store.mu shared, the others by the eviction step
// under Store.mu exclusively.
type counters struct {
	PutsExisting      atomic.Int64
	AllocationFailure atomic.Int64
	EvictionAttempts  int64
	EvictedKeys       int64
	EvictedBytes      int64
}

// Store is the embedded pool. It is safe for concurrent use.
//
// Its fields are laid out by who writes them: the fields the calls only
// read come first, and each group the calls write comes after a cache line
// of padding, so that one call's write does not take from every other
// core the line that it is about to read. Every Put writes the structure
// lock four times, the in-flight count twice and the publish counts once
// each. On the H200 machine's 16 cores, Puts of 8 pages a call from 16
// goroutines took 2,073 CPU ns a page with these fields packed together
// and 1,249 laid out so (BenchmarkPut4KiB; docs/benchmarks.md, run 43).
type Store struct {
	opts     Options
	address  string
	segs     []*segment
	maxAlloc int64 // the largest allocation a segment can hold: its capacity
	runLimit int64 // the largest run of a call placed as one allocation
	qbits    uint  // the allocators' quantum, 2^qbits bytes (quantumBits)
	closed   bool  // written under mu exclusively

	stop chan struct{}
	done chan struct{}

	index  *keyIndex      // every object, published or not, by packed key
	keys   keyPacker      // the prefixes of the packed keys
	objs   *slabs[object] // where Put and Reserve take their objects
	keyMem *slabs[byte]   // and the memory of their keys

	_        cpu.CacheLinePad
	mu       sync.RWMutex   // the structure lock (see index.go)
	inflight sync.WaitGroup // Puts between PutStart and PutEnd, open Reservations

	_         cpu.CacheLinePad
	nextSeg   atomic.Uint64 // round-robin placement: the next call's segment
	seq       atomic.Uint64 // publish order
	published atomic.Int64
	used      atomic.Int64 // the objects' sizes: the segments' held bytes

	_         cpu.CacheLinePad
	draws     atomic.Uint64 // random start shards drawn (lease.go)
	lastGrant atomic.Int64  // the latest lease deadline granted (lease.go)
	pinners   atomic.Int32  // callers pinning the arenas (ArenasPinned)

	_            cpu.CacheLinePad
	epoch        uint64 // the eviction step's; mu exclusively
	count        counters
	needEviction atomic.Bool
	softPins     atomic.Bool // an object was soft-pinned since the store opened
	groupsMu     sync.Mutex
	groups       map[string]*group
	_            cpu.CacheLinePad
}

// New opens a store with opts (zero fields take the defaults), loading
// opts.SnapshotPath when that file exists.
func New(opts Options) (*Store, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("mem pool: %w", err)
	}
	s := &Store{opts: o, address: addressOf(o), index: newIndex(o.Capacity, o.IndexKeys), groups: map[string]*group{},
		objs: newSlabs[object](sharedSlabObjects), keyMem: newSlabs[byte](sharedSlabKeyBytes)}
	for i := range o.Segments {
		g := newSegment(fmt.Sprintf("mem-%d", i), o.segmentCapacity(i), o.ArenaSize, o.MetadataOnly)
		g.pinners = &s.pinners
		s.segs = append(s.segs, g)
		s.maxAlloc = max(s.maxAlloc, g.capacity)
		s.runLimit = max(s.runLimit, g.arenaSize)
	}
	s.qbits = quantumBits(s.maxAlloc)
	if o.SnapshotPath != "" {
		if err := s.load(o.SnapshotPath); err != nil {
			return nil, err
		}
	}
	if o.Preallocate {
		for _, g := range s.segs {
			for g.openedEnd < g.capacity {
				g.openArena(g.arenaSize, false)
			}
		}
	}
	if o.Eviction == EvictBackground {
		s.stop, s.done = make(chan struct{}), make(chan struct{})
		go s.evictLoop(s.stop, s.done)
	}
	return s, nil
}

// addressOf spells the options as a mem:// URL for Stat.Address.
func addressOf(o Options) string {
	q := url.Values{}
	q.Set("capacity", size.Format(o.Capacity))
	q.Set("segments", fmt.Sprint(o.Segments))
	if o.MetadataOnly {
		q.Set("metadata_only", "true")
	}
	if o.SnapshotPath != "" {
		q.Set("snapshot", o.SnapshotPath)
	}
	return "mem://?" + q.Encode()
}

// Close refuses new calls, waits for the Puts in flight and blocks until
// every open Reservation is committed or aborted, then stops the eviction
// loop and saves the snapshot file, if any. Later calls do nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.inflight.Wait()
	if s.stop != nil {
		close(s.stop)
		<-s.done
	}
	if s.opts.SnapshotPath == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.save(s.opts.SnapshotPath)
}

// begin checks a batch call's context, slice lengths and the store's state;
// the caller holds s.mu, shared or exclusively.
func (s *Store) begin(ctx context.Context, op string, keys, results int) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mem pool %s: %w", op, err)
	}
	if keys != results {
		return &pool.Error{Code: pool.InvalidParams, Op: op, Err: fmt.Errorf("%d keys but %d result slots", keys, results)}
	}
	if s.closed {
		return fmt.Errorf("mem pool %s: %w", op, ErrClosed)
	}
	return nil
}

// nowNanos reads the clock.
func (s *Store) nowNanos() int64 { return s.opts.Now().UnixNano() }

// Stat reports the pool's occupancy and counters. SoftPinnedKeys counts
// published objects whose soft pin is still active; it walks every object
// once any was soft-pinned.
func (s *Store) Stat(ctx context.Context) (pool.Stat, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx, "stat", 0, 0); err != nil {
		return pool.Stat{}, err
	}
	now := s.nowNanos()
	st := pool.Stat{
		Backend:           "mem",
		Address:           s.address,
		Keys:              s.published.Load(),
		UsedBytes:         s.used.Load(),
		CapacityBytes:     s.opts.Capacity,
		EvictedKeys:       s.count.EvictedKeys,
		EvictedBytes:      s.count.EvictedBytes,
		EvictionAttempts:  s.count.EvictionAttempts,
		PutsExisting:      s.count.PutsExisting.Load(),
		AllocationFailure: s.count.AllocationFailure.Load(),
	}
	if s.softPins.Load() { // else spare the walk of every object
		s.forEachObject(func(o *object) {
			if o.published() && softPinned(o, now) {
				st.SoftPinnedKeys++
			}
		})
	}
	for _, g := range s.segs {
		g.mu.Lock()
		st.Segments = append(st.Segments, pool.Segment{Name: g.name, CapacityBytes: g.capacity, UsedBytes: g.held})
		g.mu.Unlock()
	}
	return st, nil
}

var _ pool.UsageReporter = (*Store)(nil)

// Usage is Stat's used and capacity bytes, without its walk over every
// object.
func (s *Store) Usage() (used, capacity int64) { return s.used.Load(), s.opts.Capacity }

// Arenas returns the arena byte slices allocated so far, segment by
// segment (none in metadata-only mode). Objects' bytes returned by View lie
// inside them, each inside one. Arenas are never freed while the store is
// open.
func (s *Store) Arenas() [][]byte {
	var out [][]byte
	for _, g := range s.segs {
		g.mu.Lock()
		for _, a := range g.arenas {
			if a.mem != nil {
				out = append(out, a.mem)
			}
		}
		g.mu.Unlock()
	}
	return out
}

// Options returns the options the store runs with, defaults filled in.
func (s *Store) Options() Options { return s.opts }

func softPinned(o *object, now int64) bool {
	until := o.softPinUntil()
	return until != 0 && now < until
}

func leased(o *object, now int64) bool { return now < o.lease.Load() }

// extendLease sets o's lease to max(lease, until).
func extendLease(o *object, until int64) {
	for {
		cur := o.lease.Load()
		if cur >= until || o.lease.CompareAndSwap(cur, until) {
			return
		}
	}
}
