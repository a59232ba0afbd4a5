package mem

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/kvctl/kvctl/pool"
)

// Reservation is a batch of puts placed by Reserve whose bytes the caller
// writes in place before Commit publishes them (Mooncake's PutStart, then
// PutEnd or PutRevoke): mem's pool.Reservation. Exactly one of Commit and
// Abort takes effect; later calls of either do nothing. Its methods are
// safe for concurrent use and do nothing on a nil Reservation.
type Reservation struct {
	s      *Store
	placed []*object    // the placed items' objects, in call order
	opts   []placedOpts // the options of those placed items that have any
	done   atomic.Bool  // set by the one Commit or Abort that takes effect
}

// placedOpts is the options Commit publishes placed item at with; items
// without options (most) have none stored.
type placedOpts struct {
	at   int
	opts pool.PutOptions
}

// Reserve places each item whose key is absent, as Put's first phase does,
// without copying: dsts[i] is the item's bytes in its arena (len == its
// size, from SizeOf; Value is ignored and may be nil) for an OK item and
// nil otherwise. Per item codes[i] is OK, ObjectAlreadyExists (the key is
// published, or reserved or being put, earlier in this call included),
// InvalidParams (as Put: bad key, size or soft pin TTL; every item of a
// metadata-only store, which has no bytes to write) or NoAvailableHandle
// (no room; the next eviction step runs even below the watermark). A
// cancelled context, a closed store or slices of other lengths than items
// fail the whole call, as for Put.
//
// Until Commit the placed objects are invisible (reads, Exist, List and
// snapshots report them absent, eviction and Remove ignore them) but their
// bytes count in UsedBytes. The caller writes dsts before calling Commit
// and must not touch them after Commit or Abort. Close blocks until every
// reservation that placed an item is committed or aborted.
func (s *Store) Reserve(ctx context.Context, items []pool.PutItem, dsts [][]byte, codes []pool.Code) (pool.Reservation, error) {
	var pending []*object
	if !s.opts.MetadataOnly {
		pending = s.newObjects(items, true)
	}
	s.tendIndex(len(items))
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.begin(ctx, "reserve", len(items), len(codes)); err != nil {
		return nil, err
	}
	if len(dsts) != len(items) {
		return nil, &pool.Error{Code: pool.InvalidParams, Op: "reserve", Err: fmt.Errorf("%d items but %d destinations", len(items), len(dsts))}
	}
	r := &Reservation{s: s}
	clear(dsts)
	if pending == nil {
		for i := range codes {
			codes[i] = pool.InvalidParams
		}
		return r, nil
	}
	sc := getPutScratch(len(pending))
	n := s.putStart(pending, codes, sc.fresh)
	putPutScratch(sc)
	if n == 0 {
		return r, nil
	}
	r.keep(pending, items, dsts)
	s.inflight.Add(1)
	return r, nil
}

// keep records the placed objects of pending (nil for the items not
// placed) and their items' options, and writes their bytes into dsts. The
// objects are packed to the front of pending, which r keeps.
func (r *Reservation) keep(pending []*object, items []pool.PutItem, dsts [][]byte) {
	placed := pending[:0]
	for i, o := range pending {
		if o == nil {
			continue
		}
		dsts[i] = o.bytes()
		if opts := &items[i].Options; *opts != (pool.PutOptions{}) {
			r.opts = append(r.opts, placedOpts{at: len(placed), opts: *opts})
		}
		placed = append(placed, o)
	}
	r.placed = placed
}

// Commit publishes every placed item, as Put does once its bytes are
// copied: each with its item's Options (soft pin from now, group, hard
// pin). It does nothing after Commit or Abort.
func (r *Reservation) Commit() { r.finish(true) }

// Abort frees every placed item, as if it had never been put: its key is
// free again and its bytes are returned to the allocator. It does nothing
// after Commit or Abort.
func (r *Reservation) Abort() { r.finish(false) }

// finish publishes or revokes the placed items, once.
func (r *Reservation) finish(publish bool) {
	if r == nil || len(r.placed) == 0 || !r.done.CompareAndSwap(false, true) {
		return
	}
	s := r.s
	s.mu.RLock()
	if publish {
		r.publish()
	} else {
		for _, o := range r.placed {
			s.revoke(o)
		}
	}
	s.mu.RUnlock()
	s.inflight.Done()
}

// publish publishes the placed objects in order, each with its item's
// options; the caller holds s.mu shared.
func (r *Reservation) publish() {
	s := r.s
	now, seq := s.nowNanos(), s.seqRange(len(r.placed))
	opts := r.opts
	var none pool.PutOptions
	for i, o := range r.placed {
		p := &none
		if len(opts) > 0 && opts[0].at == i {
			p, opts = &opts[0].opts, opts[1:]
		}
		s.putEnd(o, p, now, seq+uint64(i))
	}
	s.published.Add(int64(len(r.placed)))
}

// revoke takes a placed, unpublished object out of the index and frees its
// memory (Mooncake's PutRevoke); the caller holds s.mu shared.
func (s *Store) revoke(o *object) {
	s.unindex(o)
	o.set(flagRemoved)
	s.freeObject(o)
}
