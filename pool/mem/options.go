package mem

import (
	"cmp"
	"fmt"
	"time"
)

// Defaults of Options, the Mooncake master's where it has one.
const (
	DefaultCapacity      = 64 << 30
	DefaultSegments      = 4
	DefaultArenaSize     = 64 << 20
	DefaultLeaseTTL      = 10 * time.Second
	DefaultSoftPinTTL    = 30 * time.Minute
	DefaultMaxSoftPinTTL = 24 * time.Hour
	DefaultHighWatermark = 0.90
	DefaultEvictionRatio = 0.05
	// EvictionInterval is how often the background eviction loop runs.
	EvictionInterval = 10 * time.Millisecond
	// MaxCapacity is the largest capacity a store accepts (1 PiB).
	MaxCapacity = 1 << 50
	// MaxSegments is the largest number of segments a store accepts.
	MaxSegments = 4096
	// MaxKeyLen is the longest key a store accepts, in bytes.
	MaxKeyLen = 64 << 10
	// Granule is the allocation unit: object sizes are rounded up to it.
	Granule = 64
	// MaxIndexKeys is the largest Options.IndexKeys a store accepts.
	MaxIndexKeys = 1 << 32
)

// EvictionMode says who runs the eviction step.
type EvictionMode int

// Eviction modes.
const (
	// EvictBackground runs the eviction step every EvictionInterval in a
	// goroutine that Close stops.
	EvictBackground EvictionMode = iota
	// EvictManual runs it only when EvictNow (or RunEvictionStep) is called.
	EvictManual
)

// String is the mode's URL spelling.
func (m EvictionMode) String() string {
	if m == EvictManual {
		return "manual"
	}
	return "background"
}

// Options configure a Store. Zero fields take the defaults above.
type Options struct {
	// Capacity is the pool's total size in bytes, split evenly over the
	// segments (or in SegmentBytes pieces). It is a limit: arenas are allocated as the pool fills.
	Capacity int64
	// Segments is the number of segments.
	Segments int
	// SegmentBytes, when positive, sizes the segments as clients mounting
	// global_segment_size each do: Capacity / SegmentBytes segments of
	// SegmentBytes, and a last, smaller one holding the remainder when it
	// does not divide. Segments is then derived (if set, it must agree).
	SegmentBytes int64
	// ArenaSize is the unit in which segment memory is allocated in byte
	// mode; an object larger than it opens an arena of its own size, and
	// objects up to the segment size are accepted. Without bytes
	// (MetadataOnly) a segment is one arena. It must be a multiple of
	// Granule.
	ArenaSize int64
	// MetadataOnly keeps sizes and state but no bytes.
	MetadataOnly bool
	// Preallocate allocates every arena when the store opens.
	Preallocate bool
	// LeaseTTL is default_kv_lease_ttl.
	LeaseTTL time.Duration
	// SoftPinTTL is default_kv_soft_pin_ttl, used by SoftPinEnable without
	// a TTL.
	SoftPinTTL time.Duration
	// MaxSoftPinTTL is max_kv_soft_pin_ttl.
	MaxSoftPinTTL time.Duration
	// HighWatermark is eviction_high_watermark_ratio, in [0, 1] as the
	// master accepts it (master_service.cpp, MasterService constructor);
	// zero takes the default unless ZeroHighWatermark is set.
	HighWatermark float64
	// EvictionRatio is eviction_ratio, in [0, 1]; zero takes the default
	// unless ZeroEvictionRatio is set.
	EvictionRatio float64
	// ZeroHighWatermark sets HighWatermark to 0: every eviction step
	// finds the pool above its watermark once it holds anything.
	ZeroHighWatermark bool
	// ZeroEvictionRatio sets EvictionRatio to 0: a failed allocation no
	// longer triggers eviction, only the watermark does, as the master's
	// EvictionThreadFunc requires eviction_ratio > 0 for that trigger.
	ZeroEvictionRatio bool
	// KeepSoftPinned stops pass 2 of eviction from evicting soft-pinned
	// objects (allow_evict_soft_pinned_objects=false).
	KeepSoftPinned bool
	// Eviction says who runs the eviction step.
	Eviction EvictionMode
	// SnapshotPath, when set, is loaded by New if it exists and saved by
	// Close and Snapshot.
	SnapshotPath string
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// IndexKeys, when positive, is how many keys the index is sized for
	// when the store opens, at most MaxIndexKeys; it grows past them as
	// keys arrive. Zero sizes it from Capacity, for few keys. A caller
	// that knows about how many keys it will store saves the index the
	// work and the garbage of growing (a table of 8 to 16 bytes per key).
	IndexKeys int64
	// Seed seeds the store's random draws: the start shard of each
	// leasing batch's walk and of eviction's second pass, which the master
	// draws at random. A store replaying the same calls with the same seed
	// draws the same shards; the default, 0, is a seed like any other.
	Seed uint64
}

// WithRatios returns o with the master's eviction_ratio and
// eviction_high_watermark_ratio taken as given, 0 included (a zero field
// alone would mean the default).
func (o Options) WithRatios(evictionRatio, watermark float64) Options {
	o.EvictionRatio, o.ZeroEvictionRatio = evictionRatio, evictionRatio == 0
	o.HighWatermark, o.ZeroHighWatermark = watermark, watermark == 0
	return o
}

// withDefaults fills the zero fields and validates the result.
func (o Options) withDefaults() (Options, error) {
	o.Capacity = cmp.Or(o.Capacity, DefaultCapacity)
	if o.SegmentBytes > 0 && o.Segments == 0 {
		o.Segments = int(min((o.Capacity+o.SegmentBytes-1)/o.SegmentBytes, MaxSegments+1))
	}
	o.Segments = cmp.Or(o.Segments, DefaultSegments)
	o.ArenaSize = cmp.Or(o.ArenaSize, DefaultArenaSize)
	o.LeaseTTL = cmp.Or(o.LeaseTTL, DefaultLeaseTTL)
	o.SoftPinTTL = cmp.Or(o.SoftPinTTL, DefaultSoftPinTTL)
	o.MaxSoftPinTTL = cmp.Or(o.MaxSoftPinTTL, DefaultMaxSoftPinTTL)
	if !o.ZeroHighWatermark {
		o.HighWatermark = cmp.Or(o.HighWatermark, DefaultHighWatermark)
	}
	if !o.ZeroEvictionRatio {
		o.EvictionRatio = cmp.Or(o.EvictionRatio, DefaultEvictionRatio)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, o.validate()
}

func (o Options) validate() error {
	switch {
	case o.Capacity < 0 || o.Capacity > MaxCapacity:
		return fmt.Errorf("capacity %d is outside (0, 1PiB]", o.Capacity)
	case o.Segments < 0 || o.Segments > MaxSegments:
		return fmt.Errorf("segments %d is outside [1, %d]", o.Segments, MaxSegments)
	case o.SegmentBytes < 0:
		return fmt.Errorf("segment bytes %d is negative", o.SegmentBytes)
	case o.SegmentBytes > 0 && int64(o.Segments) != (o.Capacity+o.SegmentBytes-1)/o.SegmentBytes:
		return fmt.Errorf("%d segments of %d bytes do not make capacity %d", o.Segments, o.SegmentBytes, o.Capacity)
	case o.segmentCapacity(o.Segments-1) < Granule:
		return fmt.Errorf("capacity %d is too small for %d segments (each needs %d bytes)", o.Capacity, o.Segments, Granule)
	case o.ArenaSize < 0 || o.ArenaSize%Granule != 0:
		return fmt.Errorf("arena size %d is not a positive multiple of %d", o.ArenaSize, Granule)
	case o.LeaseTTL < 0 || o.SoftPinTTL < 0 || o.MaxSoftPinTTL < 0:
		return fmt.Errorf("negative TTL (lease %v, soft pin %v, max soft pin %v)", o.LeaseTTL, o.SoftPinTTL, o.MaxSoftPinTTL)
	case o.SoftPinTTL > o.MaxSoftPinTTL:
		return fmt.Errorf("soft pin TTL %v is above the max soft pin TTL %v", o.SoftPinTTL, o.MaxSoftPinTTL)
	case !(o.HighWatermark >= 0 && o.HighWatermark <= 1):
		return fmt.Errorf("high watermark %v is outside [0, 1]", o.HighWatermark)
	case !(o.EvictionRatio >= 0 && o.EvictionRatio <= 1):
		return fmt.Errorf("eviction ratio %v is outside [0, 1]", o.EvictionRatio)
	case o.ZeroHighWatermark && o.HighWatermark != 0:
		return fmt.Errorf("zero high watermark with high watermark %v", o.HighWatermark)
	case o.ZeroEvictionRatio && o.EvictionRatio != 0:
		return fmt.Errorf("zero eviction ratio with eviction ratio %v", o.EvictionRatio)
	case o.IndexKeys < 0 || o.IndexKeys > MaxIndexKeys:
		return fmt.Errorf("index keys %d is outside [0, %d]", o.IndexKeys, int64(MaxIndexKeys))
	case o.Eviction != EvictBackground && o.Eviction != EvictManual:
		return fmt.Errorf("unknown eviction mode %d", int(o.Eviction))
	}
	return nil
}

// segmentCapacity is segment i's share of the capacity: SegmentBytes, the
// last segment the remainder, when SegmentBytes is set; otherwise an even
// split whose remainder goes to the first segments.
func (o Options) segmentCapacity(i int) int64 {
	if o.SegmentBytes > 0 {
		return min(o.SegmentBytes, o.Capacity-int64(i)*o.SegmentBytes)
	}
	n := int64(o.Segments)
	c := o.Capacity / n
	if int64(i) < o.Capacity%n {
		c++
	}
	return c
}
