// Package mem is kvctl's embedded pool: segments of preallocated memory
// behind a Mooncake-master-like object index, with the master's put-if-absent
// writes, leases, soft and hard pins, eviction groups and eviction loop
// (see spec/mooncake-pool.md), checked against recordings of a real
// master by package pool/replay (testdata/mooncake-real).
//
// # Memory
//
// The capacity is split evenly over the segments, and each segment has
// its own offset allocator, as each segment a Mooncake client mounts does
// (global_segment_size, 3.125 GiB by default): an object is one contiguous
// allocation of up to a segment. Larger objects are refused with
// InvalidParams. As upstream's allocator does (offset_allocator.cpp,
// __Allocator::allocate), an object takes its size rounded up to its bin,
// a float with a 3-bit mantissa (in quanta of 2^k bytes for segments over
// 3.75 GB, the fewest k that bring the segment under it): sizes m*2^j with
// m <= 15 (64 KiB, 28, 32, 40, 160 MiB) are exact, others grow by less than
// 12.5%, and an object whose bin exceeds the free space fails with
// NoAvailableHandle (in a 3.125 GiB segment the largest object is 3 GiB).
// Sizes are also aligned to 64 bytes, which changes nothing from 512 bytes
// up. UsedBytes, and the used ratio eviction compares with the watermark,
// count the sizes put, as the master counts them (allocator.cpp,
// OffsetBufferAllocator::allocate), so a pool of inexact sizes is fuller
// than its ratio says. Inside a segment a binned first-fit allocator with
// coalescing reuses freed space before it takes unused space.
//
// In byte mode a segment's memory is arenas (64 MiB by default), allocated
// lazily, back to back, the first time an allocation needs one, so a 64 GiB
// pool costs only what it holds; an arena is reused after eviction and
// removal, never returned. An arena opened for values of a page or more
// has its pages mapped ahead on a goroutine of its own (Linux,
// MADV_POPULATE_WRITE), so that their faults leave the goroutine that puts,
// and is backed by transparent huge pages where the system allows them
// (MADV_HUGEPAGE: hugepages.Advise); small values' arenas fault in as they fill
// (populate.go). While a GPU pins the arenas (ArenasPinned), its
// registration maps an arena values open, and the segment keeps the next
// arena opened and mapped ahead of its values instead (keepAhead). An
// allocation larger than the arena size opens an arena of its own size. Free space never spans two arenas, so every
// object lies inside one arena, one buffer a GPU can register: Arenas
// returns them. The free tail of an arena too small for the next object
// waits for smaller ones, where upstream's contiguous segment would use it;
// arena=SEGMENT (the segment's size) removes that difference at the cost of
// registering the segment whole. In metadata-only mode a segment is one
// contiguous range, as upstream's.
//
// Each Put or Reserve call takes the next segment round-robin and places
// its new values back to back in call order as one allocation (a call
// larger than an arena is cut into runs of at most an arena, each placed
// so; a value larger than an arena is a run of its own), so that a call's
// values are adjacent in memory; such a run may open a new arena while
// smaller free pieces remain in the opened ones. A run that fits in no
// segment as one piece is placed value by value, each on the first segment
// with room from the call's own, so that a value fails only when no
// segment has room for it. Values are freed one by one and freed
// neighbours merge.
//
// # Concurrency
//
// The index is a hash table whose chains run through the objects
// themselves (keyindex.go): lookups read it without a lock, a put's claim
// of a key locks one stripe of its heads, and each segment's allocator
// has its own lock, so that Put, Reserve, Commit, Abort and the reads of
// different goroutines run in parallel; they share the store's structure
// lock, which Remove, the eviction step, Stat, List, Snapshot, Close and
// the index's growth take alone. A batch call probes the index in phases
// (every key packed, then every head, every chain's first object and its
// key prefetched in turn, then every chain walked and every object
// checked), so that the probes' cache misses overlap (lookupall.go).
//
// # Keys
//
// A key that ends in a block hash's 32 lower-case hex digits, as every
// page key does, is held packed: its prefix's number in a table of the
// store's prefixes (up to 4096) and the hash's 16 bytes, 19 bytes in all
// instead of some 72 (keypack.go). Other keys are held as they are. The
// store keeps no caller's key string (pool.KeyCopier), so that a caller
// may spell its keys into a buffer it reuses; List and snapshots spell the
// keys again.
//
// # Metadata-only mode
//
// With MetadataOnly the pool keeps sizes, placement and state but no bytes:
// Put accepts a nil Value with Size (a non-nil Value is accepted and its
// bytes dropped), capacity accounting is that of the byte mode with
// arenas as large as the segments, and
// Get and View answer InvalidParams for present keys (ObjectNotFound for
// absent ones) after granting the lease a read would have granted. Use
// Sizes to read sizes.
//
// # Semantics
//
// A put allocates (PutStart), copies the bytes outside the index lock (on
// amd64, values from 1 KiB with stores that bypass the caches) and then
// publishes (PutEnd); only published objects are visible. A put of a
// key that exists, published or still being written, is a no-op answered
// ObjectAlreadyExists and counted in Stat.PutsExisting; the first writer's
// bytes stay. A key must be non-empty and at most 64 KiB; a value must be at
// least one byte.
//
// Reserve is a put whose bytes the caller writes in place (a GPU writing
// into registered arenas): it allocates as PutStart does and returns the
// destinations; Reservation.Commit publishes them as PutEnd does and
// Reservation.Abort frees them as PutRevoke does. A reserved key is
// invisible and answers ObjectAlreadyExists to another put, as a put in
// progress does. ViewBatch is View for a batch of keys under one lock,
// with one release for the batch.
//
// Get, Sizes, View, ViewBatch and ExistLeasing lease the present keys as
// the master's BatchExistKey and BatchGetReplicaList do: key by key,
// walking the master's 1024 metadata shards (a key's shard is libstdc++'s
// std::hash<std::string>(key) % 1024, its group id's when grouped)
// downwards from a random start shard, wrapping at 0, a shard's keys in
// request order; each grant sets the lease to max(lease, deadline), where
// the call's deadlines are max(now + LeaseTTL, the store's latest deadline
// + 1ns) plus 1ns per grant, so that they are distinct and increase along
// the walk and from call to call even on a clock that stands still (the
// master reads the clock, in ns, for every key). The start shards come
// from a stream seeded by Options.Seed: the same calls with the same seed
// lease in the same order. A grouped key's read leases every member of
// its group, but only when the key's lease is within LeaseTTL/2 of expiry
// or a member joined since the group was last leased; otherwise the read
// grants no lease (GrantLeaseForGroup). Exist and List grant none. A
// leased object (or one held by a view or a Get in progress) is not
// evicted and is removed only with force; a forced removal of an object
// being read frees its memory when the last reader is done. An object
// still being written (a put between PutStart and PutEnd, a reservation)
// is not removed, force or not: Remove answers ReplicaIsNotReady, as the
// master does. RemoveAll (pool.AllRemover, the master's RemoveAll) removes
// every object Remove would remove with the same force and returns how
// many.
//
// SoftPinEnable pins an object until publish time + SoftPinTTL (the
// option's TTL, or the store's default); reads do not extend it; a TTL above
// MaxSoftPinTTL is InvalidParams. Hard-pinned objects are never evicted.
//
// Eviction follows the master's BatchEvict: it runs when
// used/capacity > HighWatermark or after an allocation failed (which
// answers NoAvailableHandle for that key). With u = used/capacity,
// hw = HighWatermark and r = EvictionRatio it computes
// target = max(r, u-hw+r) and lowerbound = max(target/2, u-hw) as fractions
// of the base: the published objects that are neither hard-pinned nor
// being read. Candidates are base objects whose lease has expired, ordered
// oldest lease deadline first; deadlines never tie, because objects
// published at one instant of the clock are ordered by publish order (the
// master's nanosecond clock orders them so). Pass 1 (master_service.cpp
// 10434-10504) takes the candidates without an active soft pin: every one
// at or before the deadline of the ceil(base*target)-th, even once that
// many went, and younger ones only while fewer went (the master's
// replacements for skipped candidates come in nth_element order; here
// oldest first). Pass 2 (10514-10660) evicts up to ceil(base*lowerbound)
// minus what pass 1 evicted: when the unpinned candidates pass 1 left
// cover it, those at or before the deadline of the want-th oldest of them;
// otherwise every unpinned candidate and (unless KeepSoftPinned) the
// soft-pinned ones at or before the deadline of the oldest needed; in the
// master's shard-scan order (upwards from a random start shard, oldest
// first inside a shard), stopping once enough went. When a candidate
// belongs to an eviction group, the group is skipped if any member is
// leased; otherwise every member goes except hard-pinned ones, members
// being read and, outside pass 2's soft-pinned stage, soft-pinned ones.
// Every evicted object counts toward the pass's number. With
// EvictBackground a goroutine runs the step every 10 ms; with EvictManual only EvictNow (pool.Evicter)
// or RunEvictionStep does.
// Stat.EvictionAttempts counts the steps that ran, EvictedKeys and
// EvictedBytes what they evicted (object sizes, as the master counts).
//
// # URL
//
// Open accepts mem:// URLs (registered as scheme "mem") with these query
// parameters; anything else is refused with an error wrapping
// pool.ErrBadURL:
//
//	capacity=64GiB          total capacity (binary units, see package size)
//	segments=4              number of segments
//	arena=64MiB             arena size in byte mode (objects may be larger)
//	metadata_only=false     sizes and state only, no bytes
//	preallocate=false       allocate every arena at open
//	lease_ttl=10s           default_kv_lease_ttl
//	soft_pin_ttl=30m        default_kv_soft_pin_ttl
//	max_soft_pin_ttl=24h    max_kv_soft_pin_ttl
//	watermark=0.9           eviction_high_watermark_ratio, in [0, 1]
//	eviction_ratio=0.05     eviction_ratio, in [0, 1]; with 0 a failed
//	                        allocation does not trigger eviction, only
//	                        the watermark does (as the master)
//	evict_soft_pinned=true  allow_evict_soft_pinned_objects
//	eviction=background     background (every 10 ms) or manual (EvictNow)
//	snapshot=PATH           load PATH at open if it exists, save it on Close
//	seed=0                  seed of the random start shards (see above)
//
// # Snapshot format
//
// A snapshot file (version 2) is little-endian binary: the magic
// "KVCTLMEM", uint32 version, uint32 flags (bit 0: metadata-only),
// int64 capacity, uint32 segments, int64 arena size, uint32 next segment
// (where round-robin placement resumes), int64 save time (Unix ns), five
// int64 counters (puts existing, allocation failures,
// eviction attempts, evicted keys, evicted bytes), per segment a uint32
// number of allocated arenas followed by each arena's int64 end offset
// (arenas lie back to back from offset 0), uint64 object count, then per object
// in publish order: uint32 key length and key, int64 size, uint32 segment,
// int64 offset, int64 publish time and int64 lease deadline (Unix ns),
// uint8 flags (bit 0 hard pin, bit 1 soft pin, bit 2 group), int64 soft pin
// deadline if bit 1, uint32 length and group id if bit 2, and the value's
// bytes unless metadata-only; last, the xxh3-64 of everything before it as
// uint64. A snapshot is loaded only into a store of the same capacity,
// segments, arena size and mode: a URL that names a snapshot and none of
// capacity=, segments=, arena= and metadata_only= takes them from the
// file's header, and one that sets any of them is refused
// at open when they differ from the file's; it is written to a temporary file beside
// the target and renamed over it. Objects keep their placement, so the
// loaded pool's accounting equals the saved one's. Runs sharing a snapshot
// file do not merge: the last to save wins. Version 1 files, which gave
// each segment a count of arenas of the arena size, are still read.
package mem
