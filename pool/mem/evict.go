package mem

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// EvictionStep reports one eviction step.
type EvictionStep struct {
	// Ran says whether the step evicted at all: used/capacity was above the
	// high watermark or an allocation had failed since the last success.
	Ran bool
	// UsedRatio is used/capacity when the step started.
	UsedRatio float64
	// Target and Lowerbound are the step's fractions of Base.
	Target, Lowerbound float64
	// Base is the number of published objects that are not hard-pinned.
	Base int
	// Pass1 and Pass2 are the objects each pass evicted.
	Pass1, Pass2 int
	// Bytes is the evicted objects' total size.
	Bytes int64
}

// EvictionTargets is the master's arithmetic: with used the used ratio, hw
// the high watermark and ratio the eviction ratio, target =
// max(ratio, used-hw+ratio) and lowerbound = max(target/2, used-hw).
func EvictionTargets(used, hw, ratio float64) (target, lowerbound float64) {
	target = max(ratio, used-hw+ratio)
	lowerbound = max(target*0.5, used-hw)
	return target, lowerbound
}

// RunEvictionStep runs one eviction step synchronously, as the background
// loop does every EvictionInterval, and reports it: it evicts only when
// used/capacity is above the high watermark or an allocation has failed.
func (s *Store) RunEvictionStep() EvictionStep {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return EvictionStep{}
	}
	return s.evictStep()
}

// EvictNow is RunEvictionStep without the report (pool.Evicter).
func (s *Store) EvictNow() { s.RunEvictionStep() }

// ManualEviction reports whether the store was opened with EvictManual, so
// that only EvictNow evicts (pool.Evicter).
func (s *Store) ManualEviction() bool { return s.opts.Eviction == EvictManual }

func (s *Store) evictLoop(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(EvictionInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if s.wantEviction() {
				s.RunEvictionStep()
			}
		}
	}
}

// wantEviction is the step's trigger, read without the lock.
func (s *Store) wantEviction() bool {
	used := float64(s.used.Load()) / float64(s.opts.Capacity)
	return used > s.opts.HighWatermark || s.needEviction.Load()
}

// evictStep is the master's BatchEvict (master_service.cpp:9890-10670);
// the caller holds s.mu exclusively.
func (s *Store) evictStep() EvictionStep {
	step := EvictionStep{UsedRatio: float64(s.used.Load()) / float64(s.opts.Capacity)}
	if !(step.UsedRatio > s.opts.HighWatermark || s.needEviction.Load()) {
		return step
	}
	step.Ran = true
	step.Target, step.Lowerbound = EvictionTargets(step.UsedRatio, s.opts.HighWatermark, s.opts.EvictionRatio)
	s.count.EvictionAttempts++
	s.epoch++
	ev := s.newEvictor()
	step.Base = ev.base
	step.Pass1 = ev.pass1(ceilCount(ev.base, step.Target))
	step.Pass2 = ev.pass2(ceilCount(ev.base, step.Lowerbound) - step.Pass1)
	step.Bytes = ev.bytes
	if step.Pass1+step.Pass2 > 0 || ev.base == 0 {
		s.needEviction.Store(false)
	}
	s.count.EvictedKeys += int64(step.Pass1 + step.Pass2)
	s.count.EvictedBytes += ev.bytes
	return step
}

// ceilCount is ceil(base*fraction), as the master computes it.
func ceilCount(base int, fraction float64) int {
	return int(math.Ceil(float64(base) * fraction))
}

// evictor holds one step's candidates: the objects whose lease has
// expired and that nobody reads, not hard-pinned, unpinned or (unless
// KeepSoftPinned) soft-pinned.
type evictor struct {
	s                    *Store
	now                  int64
	base                 int
	unpinned, softPinned byAge
	bytes                int64
}

func (s *Store) newEvictor() *evictor {
	ev := &evictor{s: s, now: s.nowNanos()}
	ev.unpinned.c = make([]candidate, 0, s.published.Load())
	s.forEachObject(ev.consider)
	return ev
}

// consider counts o in the base and makes it a candidate when it may go.
// The base is the master's eviction base (master_service.cpp:10247-10252):
// objects that are not hard-pinned and have an evictable replica, which
// excludes those being read.
func (ev *evictor) consider(o *object) {
	if !o.published() || o.hardPinned() || o.readers.Load() > 0 {
		return
	}
	ev.base++
	if leased(o, ev.now) {
		return
	}
	c := candidate{lease: o.lease.Load(), seq: o.seq, o: o}
	switch {
	case !softPinned(o, ev.now):
		ev.unpinned.c = append(ev.unpinned.c, c)
	case !ev.s.opts.KeepSoftPinned:
		ev.softPinned.c = append(ev.softPinned.c, c)
	}
}

// pass1 is the master's first pass (master_service.cpp:10434-10504) over
// the unpinned candidates with want = ceil(base*target): the deadline of
// the want-th oldest is the cut-off; every candidate at or before it is
// evicted, even once want objects went, and younger ones only while fewer
// than want went (replacing candidates whose group was skipped). The
// master visits them in nth_element order, so its replacements are
// arbitrary; here they are the oldest. A group skipped for a leased
// member drops its candidate from the step's second pass as the master's
// does. It returns the number of objects evicted.
func (ev *evictor) pass1(want int) int {
	q := &ev.unpinned
	want = min(want, len(q.c))
	if want <= 0 {
		return 0
	}
	cutoff := q.nth(want)
	n := 0
	for {
		c, ok := q.peek()
		if !ok || (n >= want && compareCandidates(c, cutoff) > 0) {
			return n // the rest of q are the second pass's leftovers
		}
		q.pop()
		if !c.o.removed() {
			n += ev.evictChosen(c.o, false)
		}
	}
}

// pass2 is the master's second pass (master_service.cpp:10514-10660):
// want = ceil(base*lowerbound) minus what pass 1 evicted, capped at the
// leftovers (the unpinned candidates pass 1 passed over) plus the
// soft-pinned candidates. When the leftovers cover want (pass 2A), it
// evicts unpinned candidates whose deadline is at or before the want-th
// oldest leftover's; otherwise (pass 2B) every unpinned candidate and the
// soft-pinned ones at or before the deadline of the (want-leftovers)-th
// oldest soft-pinned one, soft-pinned group members included. Either way
// it visits them in the master's shard-scan order (shardScan) and stops
// once want objects went. It returns the number of objects evicted.
func (ev *evictor) pass2(want int) int {
	left, soft := len(ev.unpinned.c), len(ev.softPinned.c)
	want = min(want, left+soft)
	if want <= 0 {
		return 0
	}
	if want <= left {
		cutoff := ev.unpinned.nth(want)
		return ev.evictInScanOrder(ev.eligible(cutoff, false, candidate{}), want, false)
	}
	if soft == 0 {
		return 0
	}
	softCutoff := ev.softPinned.nth(want - left)
	return ev.evictInScanOrder(ev.eligible(candidate{lease: math.MaxInt64}, true, softCutoff), want, true)
}

// eligible returns the live candidates pass 2 may take: unpinned ones at
// or before cutoff, and, when withSoft, soft-pinned ones at or before
// softCutoff.
func (ev *evictor) eligible(cutoff candidate, withSoft bool, softCutoff candidate) []candidate {
	var out []candidate
	pick := func(q *byAge, cut candidate) {
		for _, c := range q.c {
			if !c.o.removed() && compareCandidates(c, cut) <= 0 {
				out = append(out, c)
			}
		}
	}
	pick(&ev.unpinned, cutoff)
	if withSoft {
		pick(&ev.softPinned, softCutoff)
	}
	return out
}

// evictInScanOrder evicts cs in the master's scan order until want objects
// went: shards upwards from a random start shard, wrapping at 1024
// (master_service.cpp:10556-10558); inside a shard the master's order is
// that of a hash map, here oldest deadline first.
func (ev *evictor) evictInScanOrder(cs []candidate, want int, allowSoft bool) int {
	start := ev.s.drawShard()
	rank := func(c candidate) uint32 { return (ev.s.shardOf(c.o) + MetadataShards - start) % MetadataShards }
	slices.SortFunc(cs, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), compareCandidates(a, b))
	})
	n := 0
	for _, c := range cs {
		if n >= want {
			break
		}
		if !c.o.removed() {
			n += ev.evictChosen(c.o, allowSoft)
		}
	}
	return n
}

// evictChosen is the master's try_evict_group_or_object
// (master_service.cpp:10131-10185): it evicts o, or, when o is in a
// group, skips the group when any member is leased and otherwise evicts
// every member that is not hard-pinned, leased, being read or (unless
// allowSoft) soft-pinned. It returns the number of objects evicted.
func (ev *evictor) evictChosen(o *object, allowSoft bool) int {
	g := o.group()
	if g == nil {
		ev.evict(o)
		return 1
	}
	if g.skipEpoch == ev.s.epoch {
		return 0
	}
	for _, m := range g.members {
		if leased(m, ev.now) {
			g.skipEpoch = ev.s.epoch
			return 0
		}
	}
	var victims []*object
	for _, m := range g.members {
		if !m.hardPinned() && m.readers.Load() == 0 && (allowSoft || !softPinned(m, ev.now)) {
			victims = append(victims, m)
		}
	}
	for _, m := range victims {
		ev.evict(m)
	}
	return len(victims)
}

func (ev *evictor) evict(o *object) {
	ev.bytes += o.size
	ev.s.unpublish(o)
}
