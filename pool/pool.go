// Package pool defines the KV-cache pool kvctl reads and writes: a small,
// batched, context-aware Store interface with Mooncake Store semantics
// (put-if-absent, read-only exist, get into caller buffers), the optional
// abilities some backends add, the Mooncake error codes, and Open, which
// picks a backend from a pool URL.
//
// Backends live in subpackages (mem, redis, mooncake, mooncakestore,
// keylist) and register
// themselves with Register from an init function; import them for their side
// effect, as database/sql drivers are imported. Only cmd (the glue) and the
// backends' own tests import a backend; every other package sees a pool
// through this package's interfaces.
//
// # Design
//
// Store holds only what every backend can do. Anything more is an optional
// ability: a small interface, declared in abilities.go and nowhere else,
// that a caller finds by type assertion and falls back from (or says why it
// cannot) when a store lacks it. Each backend states the abilities it has
// with compile-time checks (var _ pool.Sizer = (*Store)(nil)). One
// conformance suite, pool/pooltest, runs against every backend and tests
// the optional abilities a store has. Keep it that way: a new need of a
// caller becomes a new ability here, never an assertion of a backend's
// concrete type.
//
// # Abilities
//
//	ability         what it adds                                   mem  redis  mooncake  mooncake-store  keylist
//	Lister          List keys by prefix                            yes  yes    yes                       yes
//	LeasingExister  Exist that grants leases (BatchExistKey)       yes                   yes
//	LeaseReporter   lease length and each key's lease deadline     yes
//	Sizer           value sizes without reading them               yes  yes              yes
//	UsageReporter   used and capacity bytes without a Stat         yes
//	Locator         values' segments and offsets, with no lease    yes
//	KeyCopier       Put keeps no caller's key string               yes
//	Snapshotter     save to the snapshot file                      yes
//	AllRemover      remove every object at once (RemoveAll)        yes                   yes
//	ReadOnly        refuses Put and Remove                                     yes                       yes
//	Evicter         the owner runs the eviction step (EvictNow)    yes
//	ArenaHolder     values in host arenas a device can map         yes
//	ArenaPinObserver arenas pinned by a caller, not mapped ahead   yes
//	Viewer          values looked up in place (ViewBatch)          yes
//	Reserver        values placed, written in place, committed     yes
//	PartGetter      parts of values, copied on several threads     yes
//	BufferRegistrar Get and Put in place in registered buffers                           yes
//	TransportReporter what the client's transfer engine does                             yes
//
// Direct transfers need ArenaHolder with Viewer (loads) or Reserver (saves);
// a replay's embedded pool needs Evicter to evict on the replay's clock.
package pool

import (
	"context"
	"time"
)

// Store is what every pool backend can do. Every method is batched: the
// per-key results are written to slices that have one element per key.
// A non-nil error from a method means the whole call failed (the pool is
// unreachable, the context ended); per-key failures are reported in the
// per-key results instead.
type Store interface {
	// Exist writes, for each key, 1 when present, 0 when absent or a
	// negative Code when the probe failed, into status (len(status) must be
	// len(keys)). It is read-only: it grants no lease.
	Exist(ctx context.Context, keys []string, status []int) error

	// Put stores each item whose key is absent, never overwriting. It writes
	// one Code per item into results: OK when stored, ObjectAlreadyExists
	// when the key was present (the stored value is kept: a no-op that
	// Mooncake's client reports as success), or another negative Code.
	Put(ctx context.Context, items []PutItem, results []Code) error

	// Get copies each key's value into bufs[i] and writes into n[i] the
	// value's size in bytes, or a negative Code (ObjectNotFound when absent,
	// InvalidParams when bufs[i] is too small for the value).
	Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error

	// Remove deletes each key, writing one Code per key into results:
	// OK, ObjectNotFound, or ObjectHasLease when a lease forbids removal
	// and force is false.
	Remove(ctx context.Context, keys []string, force bool, results []Code) error

	// Stat reports the pool's occupancy and counters.
	Stat(ctx context.Context) (Stat, error)

	// Close releases the backend's resources (and, for a pool with a
	// snapshot file, saves it).
	Close() error
}

// SoftPinAction is ReplicateConfig.soft_pin_action.
type SoftPinAction int

// Soft pin actions, with Mooncake's numeric values.
const (
	SoftPinPreserve SoftPinAction = 0
	SoftPinEnable   SoftPinAction = 1
	SoftPinDisable  SoftPinAction = 2
)

// PutOptions are the per-key options of a put (Mooncake's ReplicateConfig).
type PutOptions struct {
	// SoftPin is the soft pin action; SoftPinEnable with a zero SoftPinTTL
	// uses the backend's default soft pin TTL (30 min for mem).
	SoftPin SoftPinAction
	// SoftPinTTL is how long the soft pin holds from publish time.
	SoftPinTTL time.Duration
	// GroupID is the eviction group; empty means none.
	GroupID string
	// HardPin keeps the object from ever being evicted (it stays removable).
	HardPin bool
}

// PutItem is one key to store.
type PutItem struct {
	Key string
	// Value is the object's bytes. A backend in metadata-only mode may
	// accept a nil Value and store Size bytes of accounting only.
	Value []byte
	// Size is the object's size when Value is nil (metadata-only puts);
	// ignored when Value is set.
	Size    int64
	Options PutOptions
}

// SizeOf is the item's size in bytes: len(Value), or Size when Value is nil.
func (it PutItem) SizeOf() int64 {
	if it.Value != nil {
		return int64(len(it.Value))
	}
	return it.Size
}

// Segment is one mounted segment of pool memory.
type Segment struct {
	Name          string `json:"name"`
	CapacityBytes int64  `json:"capacity_bytes"`
	UsedBytes     int64  `json:"used_bytes"`
}

// Stat is a pool's occupancy and counters. Fields a backend cannot know are
// zero; Backend says which backend answered.
type Stat struct {
	Backend           string    `json:"backend"`
	Address           string    `json:"address"`
	ReadOnly          bool      `json:"read_only"`
	Keys              int64     `json:"keys"`
	UsedBytes         int64     `json:"used_bytes"`
	CapacityBytes     int64     `json:"capacity_bytes"`
	SoftPinnedKeys    int64     `json:"soft_pinned_keys"`
	EvictedKeys       int64     `json:"evicted_keys"`
	EvictedBytes      int64     `json:"evicted_bytes"`
	EvictionAttempts  int64     `json:"eviction_attempts"`
	PutsExisting      int64     `json:"puts_existing"`
	AllocationFailure int64     `json:"allocation_failures"`
	Segments          []Segment `json:"segments"`
	// PutsExistingApproximate is true when PutsExisting is inferred from
	// counters that also count other failures (a real Mooncake master has
	// no counter of its own for it).
	PutsExistingApproximate bool `json:"puts_existing_approximate"`
	// Warnings are what the backend noticed that a user should know, one
	// sentence each (e.g. a master that lost its metadata); callers show
	// them, packages never print them.
	Warnings []string `json:"warnings,omitempty"`
	// Transport is what the client's transfer engine does, for backends
	// that have one (TransportReporter); nil for the others.
	Transport *Transport `json:"transport,omitempty"`
}
