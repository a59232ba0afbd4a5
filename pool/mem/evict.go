package mem

import (
	"math"
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

// evictStep is the master's BatchEvict; the caller holds s.mu exclusively.
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
	step.Pass1 = ev.take(&ev.unpinned, ceilCount(ev.base, step.Target), false)
	want := ceilCount(ev.base, step.Lowerbound) - step.Pass1
	step.Pass2 = ev.take(&ev.unpinned, want, false)
	if !s.opts.KeepSoftPinned {
		step.Pass2 += ev.take(&ev.softPinned, want-step.Pass2, true)
	}
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

// evictor holds one step's candidates, oldest lease deadline first.
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
func (ev *evictor) consider(o *object) {
	if !o.published.Load() || o.hardPin {
		return
	}
	ev.base++
	if leased(o, ev.now) || o.readers.Load() > 0 {
		return
	}
	c := candidate{lease: o.lease.Load(), seq: o.seq, o: o}
	if softPinned(o, ev.now) {
		ev.softPinned.c = append(ev.softPinned.c, c)
	} else {
		ev.unpinned.c = append(ev.unpinned.c, c)
	}
}

// take evicts the oldest candidates of q until want objects went or q is
// exhausted, and returns how many went.
func (ev *evictor) take(q *byAge, want int, softStage bool) int {
	n := 0
	for n < want {
		o, ok := q.pop(want - n)
		if !ok {
			break
		}
		if !o.removed.Load() {
			n += ev.evictChosen(o, softStage)
		}
	}
	return n
}

// evictChosen evicts o, or, when o is in a group, the group's evictable
// members unless one of them is leased or being read.
func (ev *evictor) evictChosen(o *object, softStage bool) int {
	g := o.group
	if g == nil {
		ev.evict(o)
		return 1
	}
	if g.skipEpoch == ev.s.epoch {
		return 0
	}
	for _, m := range g.members {
		if leased(m, ev.now) || m.readers.Load() > 0 {
			g.skipEpoch = ev.s.epoch
			return 0
		}
	}
	var victims []*object
	for _, m := range g.members {
		if !m.hardPin && (softStage || !softPinned(m, ev.now)) {
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
