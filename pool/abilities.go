package pool

import (
	"context"
	"time"
)

// The optional abilities a backend may offer, beyond Store. Callers find
// them by type assertion (st.(pool.Sizer)) and fall back, or say why they
// cannot, when a store lacks one; every backend states the abilities it has
// with compile-time checks (var _ pool.Sizer = (*Store)(nil)). The package
// doc lists which backends have which.

// Lister is implemented by backends that can enumerate their keys.
type Lister interface {
	// List calls fn for every readable key that starts with prefix, in no
	// particular order, stopping at the first error fn returns.
	List(ctx context.Context, prefix string, fn func(key string) error) error
}

// LeasingExister is implemented by backends that can probe as Mooncake's
// BatchExistKey does: every present key's lease is extended to at least
// now + the lease TTL, which protects it from eviction for that long.
type LeasingExister interface {
	// ExistLeasing is Exist that grants a lease to every present key.
	ExistLeasing(ctx context.Context, keys []string, status []int) error
}

// KeyCopier is implemented by backends whose Put and Reserve keep no
// reference to the callers' key strings once the call returns (they copy
// what they keep), so that a caller may spell a put's keys into a buffer
// that it reuses.
type KeyCopier interface {
	// CopiesPutKeys states the ability; it does nothing.
	CopiesPutKeys()
}

// LeaseReporter is implemented by backends that can say how long their
// leases last and when each key's lease ends, so that a refused Remove
// (ObjectHasLease) can say when to retry.
type LeaseReporter interface {
	// LeaseTTL is how long a get or a leasing probe leases a key.
	LeaseTTL() time.Duration
	// Leases writes into until each key's lease deadline, or the zero Time
	// when the key is absent or its lease has expired (len(until) ==
	// len(keys)). It grants no lease.
	Leases(ctx context.Context, keys []string, until []time.Time) error
}

// Sizer is implemented by backends that can report their values' sizes
// without reading them (Mooncake's size query). A backend may grant a lease
// to every present key it sizes, as Mooncake's query does.
type Sizer interface {
	// Sizes writes each key's value size in bytes, or a negative Code
	// (ObjectNotFound when absent), into sizes (len(sizes) == len(keys)).
	Sizes(ctx context.Context, keys []string, sizes []int64) error
}

// UsageReporter is implemented by backends that can say how full they are
// at once, where Stat may walk every key: what a replay samples for its
// timeline.
type UsageReporter interface {
	// Usage is the bytes the values hold and the pool's capacity, as
	// Stat's UsedBytes and CapacityBytes.
	Usage() (used, capacity int64)
}

// Locator is implemented by backends that can say where each present value
// lives without reading it or granting a lease: what a Mooncake master's
// replica descriptors carry (/batch_query_keys answers them).
type Locator interface {
	// Locate writes each key's placement into locs (len(locs) ==
	// len(keys)); a key without one gets Code ObjectNotFound (absent) or
	// another negative Code.
	Locate(ctx context.Context, keys []string, locs []Location) error
}

// Location is where one value lives.
type Location struct {
	// Code is OK when the key has a location, else why not.
	Code Code
	// Size is the value's size in bytes.
	Size int64
	// Segment is the name of the segment holding it, as in Stat.Segments.
	Segment string
	// Offset is the value's first byte, counted from the segment's start.
	Offset int64
}

// Snapshotter is implemented by backends that can save their contents to
// the snapshot file they were opened with.
type Snapshotter interface {
	// Snapshot writes the pool's current contents to its snapshot file.
	Snapshot(ctx context.Context) error
}

// AllRemover is implemented by backends that can remove every object at
// once, as Mooncake's RemoveAll (master_service.cpp, MasterService::
// RemoveAll) does.
type AllRemover interface {
	// RemoveAll removes every object whose lease has expired, or with
	// force every object, leased or being read, and returns how many it
	// removed. Objects still being written stay, as do objects put while
	// it runs.
	RemoveAll(ctx context.Context, force bool) (int64, error)
}

// ReadOnly is implemented by backends that never accept writes; ReadOnly
// reports whether this store refuses Put and Remove.
type ReadOnly interface {
	ReadOnly() bool
}

// Evicter is implemented by backends whose eviction step their owner may
// run, so that eviction can follow the owner's clock (a replay's virtual
// time) instead of the wall clock.
type Evicter interface {
	// ManualEviction reports whether the store evicts only when EvictNow
	// is called; when false it also evicts on its own.
	ManualEviction() bool
	// EvictNow runs one eviction step synchronously: it evicts only when
	// the pool is above its high watermark or an allocation has failed.
	EvictNow()
}

// ArenaHolder is implemented by backends whose values live in host memory
// arenas of this process, which a device can map and copy to and from in
// place (direct transfers register them with the GPU).
type ArenaHolder interface {
	// Arenas returns the arenas allocated so far; values viewed (Viewer)
	// or reserved (Reserver) lie inside them, and more arenas may appear
	// later.
	Arenas() [][]byte
}

// ArenaPinObserver is implemented by ArenaHolders that do work on their
// arenas which a caller pinning them makes redundant: pool/mem maps the
// pages of a new arena of large values ahead of its fill, and a GPU's
// registration of the arena (cuMemHostRegister) maps every page as it
// locks it, so the kernel would map the same pages twice, on two threads.
// A caller that pins every arena calls ArenasPinned and, once it stops
// pinning them, the function it returned.
type ArenaPinObserver interface {
	ArenasPinned() (unpinned func())
}

// Viewer is implemented by backends that can look values up in place,
// without copying them: what direct loads need, with ArenaHolder.
type Viewer interface {
	// ViewBatch looks keys up in place: views[i] is key i's bytes (nil
	// when codes[i] is not OK). The bytes stay valid until release is
	// called.
	ViewBatch(keys []string, views [][]byte, codes []Code) (release func())
}

// Reserver is implemented by backends that place values for the caller to
// write in place before publishing them (Mooncake's PutStart, then PutEnd
// or PutRevoke): what direct saves need, with ArenaHolder.
type Reserver interface {
	// Reserve places the items whose keys are absent (sizes from SizeOf,
	// values ignored): codes[i] is Put's answer and dsts[i] the bytes to
	// fill when it is OK. The values stay invisible until the reservation
	// is committed; aborting it frees them. On error the reservation is
	// nil and nothing is placed.
	Reserve(ctx context.Context, items []PutItem, dsts [][]byte, codes []Code) (Reservation, error)
}

// Reservation is a batch of values placed by Reserver.Reserve. Exactly one
// of Commit and Abort takes effect; later calls of either do nothing. The
// caller writes the placed bytes before Commit and must not touch them
// after Commit or Abort.
type Reservation interface {
	// Commit publishes every placed value, as Put does.
	Commit()
	// Abort frees every placed value, as if it had never been put.
	Abort()
}

// PartGetter is implemented by backends that can copy part of a value, so
// that a caller may copy one large value on several threads at once, as
// Mooncake's transfer engine moves one object in slices of its slice_size
// over its workers (mooncake-transfer-engine/src/transport/rdma_transport/
// rdma_transport.cpp, RdmaTransport::submitTransferTask).
type PartGetter interface {
	// GetParts is Get of parts of values: it copies len(bufs[i]) bytes of
	// key i's value, from offset offs[i] on, into bufs[i] and writes the
	// value's whole size into n[i], or a negative Code: ObjectNotFound
	// when absent, InvalidParams when the part does not lie inside the
	// value. Every present key's lease is extended, as by Get.
	GetParts(ctx context.Context, keys []string, offs []int64, bufs [][]byte, n []int64) error
}

// BufferRegistrar is implemented by backends whose client can transfer
// straight into and out of memory registered with it (Mooncake's
// register_buffer): Get into, and Put from, buffers that lie inside a
// registered region skip the backend's own staging, one copy less each
// way. Other buffers work as before.
type BufferRegistrar interface {
	// RegisterBuffer registers b. The memory must stay allocated, and b
	// must not be registered twice, until unregister is called; a call
	// that uses b must not run while unregister does.
	RegisterBuffer(b []byte) (unregister func() error, err error)
}

// TransportReporter is implemented by backends whose client moves values
// with a transfer engine of its own (Mooncake's), to say what that engine
// does, as far as the client library reports it.
type TransportReporter interface {
	Transport() Transport
}

// NotKnown is the value of a Transport field the client library does not
// report: kvctl says so rather than guess.
const NotKnown = "not known"

// Transport is what a client's transfer engine does, as its library
// reports it.
type Transport struct {
	// Protocol is the transport the client was set up with, and that its
	// library accepted (tcp, rdma, ...).
	Protocol string `json:"protocol"`
	// Devices are the devices the transport was given (device_name), empty
	// for none.
	Devices string `json:"devices"`
	// LocalHostname is the name the client's segment and buffers are
	// known by to the other clients, as the library reports it, or
	// NotKnown.
	LocalHostname string `json:"local_hostname"`
	// DeviceMemory says whether GPU memory can be registered with the
	// transfer engine, so that values move GPU-direct: "yes", "no" or
	// NotKnown.
	DeviceMemory string `json:"device_memory"`
}
