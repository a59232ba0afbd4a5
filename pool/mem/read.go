package mem

import (
	"context"
	"fmt"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

// Exist writes 1 for each published key and 0 for the others. It is
// read-only: it grants no lease.
func (s *Store) Exist(ctx context.Context, keys []string, status []int) error {
	return s.exist(ctx, "exist", keys, status, false)
}

// ExistLeasing is Exist that also leases every present key as Mooncake's
// BatchExistKey does: key by key in the master's shard order, each to
// max(lease, its own now + LeaseTTL), a grouped key's whole group only
// when due (see grantLeases and the package doc).
func (s *Store) ExistLeasing(ctx context.Context, keys []string, status []int) error {
	return s.exist(ctx, "exist", keys, status, true)
}

func (s *Store) exist(ctx context.Context, op string, keys []string, status []int, lease bool) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.begin(ctx, op, len(keys), len(status)); err != nil {
		return err
	}
	sc := getLeaseScratch(len(keys))
	defer putLeaseScratch(sc)
	s.lookupAllPublished(keys, sc.objs)
	for i, o := range sc.objs {
		status[i] = 0
		if o != nil {
			status[i] = 1
		}
	}
	if lease {
		s.grantLeases(sc.objs, sc)
	}
	return nil
}

// Sizes is Mooncake's size query: n[i] is each key's size in bytes, or
// ObjectNotFound. Every present key's lease is extended.
func (s *Store) Sizes(ctx context.Context, keys []string, n []int64) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.begin(ctx, "size", len(keys), len(n)); err != nil {
		return err
	}
	sc := getLeaseScratch(len(keys))
	defer putLeaseScratch(sc)
	s.lookupAllPublished(keys, sc.objs)
	for i, o := range sc.objs {
		if o == nil {
			n[i] = int64(pool.ObjectNotFound)
			continue
		}
		n[i] = o.size
	}
	s.grantLeases(sc.objs, sc)
	return nil
}

// Get copies each key's value into bufs[i] and writes its size into n[i],
// or ObjectNotFound, or InvalidParams when bufs[i] is too small or the
// store is metadata-only. Every present key's lease is extended. The bytes
// are copied by copy (copyHeld says under which lock). Non-temporal
// stores, which spare the caches when a put writes (internal/streamcopy),
// made the staged loads of an H200 host slower when Get wrote its staging
// slots with them, each value fenced as puts then fenced theirs: 0.64-0.74
// of the link against 0.76-0.84 with copy, at 16 and 64 KiB pages
// (docs/benchmarks.md).
func (s *Store) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	if len(bufs) != len(keys) {
		return &pool.Error{Code: pool.InvalidParams, Op: "get", Err: errLengths(len(keys), len(bufs), "buffers")}
	}
	return s.copyHeld(ctx, keys, n, readsOf{
		fits:    func(o *object, i int) bool { return int64(len(bufs[i])) >= o.size },
		copyOut: func(o *object, i int) { copy(bufs[i], o.bytes()) },
	})
}

// GetParts copies len(bufs[i]) bytes of each key's value from offset
// offs[i] on into bufs[i] (pool.PartGetter), as Get copies whole values:
// n[i] is the value's whole size, or ObjectNotFound, or InvalidParams when
// the part does not lie inside the value or the store is metadata-only.
// Every present key's lease is extended, once per part asked.
func (s *Store) GetParts(ctx context.Context, keys []string, offs []int64, bufs [][]byte, n []int64) error {
	if len(bufs) != len(keys) || len(offs) != len(keys) {
		return &pool.Error{Code: pool.InvalidParams, Op: "get parts", Err: fmt.Errorf("%d keys but %d offsets and %d buffers", len(keys), len(offs), len(bufs))}
	}
	return s.copyHeld(ctx, keys, n, readsOf{
		fits: func(o *object, i int) bool {
			return offs[i] >= 0 && offs[i] <= o.size && int64(len(bufs[i])) <= o.size-offs[i]
		},
		copyOut: func(o *object, i int) { copy(bufs[i], o.bytes()[offs[i]:]) },
		bytes:   func(i int) int64 { return int64(len(bufs[i])) },
	})
}

// readsOf is what a get copies of each key's object o (the key's index i):
// fits says whether o can be copied, copyOut copies it, and bytes is how
// many bytes that copies (nil: the whole value).
type readsOf struct {
	fits    func(o *object, i int) bool
	copyOut func(o *object, i int)
	bytes   func(i int) int64
}

// lockedCopyBytes is the most a get's copies may move in all for copyHeld
// to make them under the index read lock.
const lockedCopyBytes = 128 << 10

// copyHeld looks the keys up, leases them, writes into n the sizes of the
// objects r can copy (and ObjectNotFound or InvalidParams for the others)
// and copies them. When they move at most lockedCopyBytes in all it copies
// them under the index read lock, which frees no published object while
// held (unpublish needs it exclusively) and delays an eviction by one
// short copy at most; larger copies run outside the lock, each object held
// as being read. Held, each object costs two atomic updates of a line
// the lookup only read: on the H200, staged loads of 4 KiB pages moved
// 0.72-0.79 of the link with their copies under the lock, against
// 0.69-0.77 (docs/benchmarks.md, "Gets of small values under the index
// read lock").
func (s *Store) copyHeld(ctx context.Context, keys []string, n []int64, r readsOf) error {
	sc := getLeaseScratch(len(keys))
	defer putLeaseScratch(sc)
	s.mu.RLock()
	held := true
	defer func() {
		if held {
			s.mu.RUnlock()
		}
	}()
	if err := s.begin(ctx, "get", len(keys), len(n)); err != nil {
		return err
	}
	total := s.leaseForGet(keys, n, sc, r)
	if total <= lockedCopyBytes {
		copyAll(sc.objs, n, r)
		return nil
	}
	for _, o := range sc.objs {
		if o != nil {
			o.readers.Add(1)
		}
	}
	s.mu.RUnlock()
	held = false
	copyAll(sc.objs, n, r)
	for _, o := range sc.objs {
		if o != nil {
			s.release(o)
		}
	}
	return nil
}

// leaseForGet looks the keys up into sc.objs and leases them, writes
// ObjectNotFound or InvalidParams into n for those r cannot copy (and
// leaves sc.objs holding the others), and returns the bytes r copies of
// those; the caller holds s.mu shared.
func (s *Store) leaseForGet(keys []string, n []int64, sc *leaseScratch, r readsOf) int64 {
	s.lookupAllPublished(keys, sc.objs)
	readable := func(o *object, i int) bool { return !s.opts.MetadataOnly && r.fits(o, i) }
	var total int64
	for i, o := range sc.objs {
		switch {
		case o == nil:
			n[i] = int64(pool.ObjectNotFound)
		case !readable(o, i):
			n[i] = int64(pool.InvalidParams)
		case r.bytes != nil:
			total += r.bytes(i)
		default:
			total += o.size
		}
	}
	s.grantLeases(sc.objs, sc)
	for i, o := range sc.objs {
		if o != nil && !readable(o, i) {
			sc.objs[i] = nil
		}
	}
	return total
}

// copyAll copies every object objs holds with r and writes its size into n.
func copyAll(objs []*object, n []int64, r readsOf) {
	for i, o := range objs {
		if o != nil {
			r.copyOut(o, i)
			n[i] = o.size
		}
	}
}

// List calls fn for every published key starting with prefix. It grants
// no lease; fn runs without the index lock, on the keys present when List
// started.
func (s *Store) List(ctx context.Context, prefix string, fn func(key string) error) error {
	s.mu.Lock()
	if err := s.begin(ctx, "list", 0, 0); err != nil {
		s.mu.Unlock()
		return err
	}
	var keys []string
	s.forEachObject(func(o *object) {
		if !o.published() {
			return
		}
		if key := s.keys.key(o.key); strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
		}
	})
	s.mu.Unlock()
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mem pool list: %w", err)
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	return nil
}
