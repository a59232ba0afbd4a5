package connector

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// Faults are injected pool faults, for testing a deployment's failure
// paths. They are deterministic given Seed and the order of the calls.
type Faults struct {
	// MissingRate is the probability that a page vanishes between the
	// lookup that found it and its load: it is removed from the pool just
	// before the load's store call, so the load finds it missing and later
	// lookups see the hole.
	MissingRate float64
	// PutErrorRate is the probability that the put of a page fails
	// (pool.TransferFail): the page is not stored.
	PutErrorRate float64
	// PoolLatency is a real delay added to every pool call (lookup, load
	// batch, save batch).
	PoolLatency time.Duration
	// Seed seeds the fault draws.
	Seed uint64
}

// Active reports whether any fault is configured.
func (f Faults) Active() bool {
	return f.MissingRate > 0 || f.PutErrorRate > 0 || f.PoolLatency > 0
}

// MaxFaultPoolLatency is the longest delay Faults.PoolLatency may add to
// each pool call: longer than any real pool answers, short enough that a
// run cannot stall for hours on one typo.
const MaxFaultPoolLatency = 10 * time.Second

// Validate checks that the rates are probabilities and the latency is not
// negative. Its errors wrap ErrBadConfig.
func (f Faults) Validate() error {
	switch {
	case f.MissingRate < 0 || f.MissingRate > 1:
		return fmt.Errorf("%w: fault missing rate %v: want a probability in [0, 1]", ErrBadConfig, f.MissingRate)
	case f.PutErrorRate < 0 || f.PutErrorRate > 1:
		return fmt.Errorf("%w: fault put error rate %v: want a probability in [0, 1]", ErrBadConfig, f.PutErrorRate)
	case f.PoolLatency < 0 || f.PoolLatency > MaxFaultPoolLatency:
		return fmt.Errorf("%w: fault pool latency %v is outside 0..%v", ErrBadConfig, f.PoolLatency, MaxFaultPoolLatency)
	}
	return nil
}

// FaultCounts are the faults a FaultMover injected.
type FaultCounts struct {
	// MissingPages were removed from the pool before their load.
	MissingPages int64
	// PutErrors are puts that were failed on purpose.
	PutErrors int64
}

// FaultMover wraps a PageMover and injects Faults. It is safe for
// concurrent use when the inner mover is.
type FaultMover struct {
	inner  PageMover
	store  pool.Store
	faults Faults

	mu     sync.Mutex
	rng    *rand.Rand
	counts FaultCounts
	// reused buffers
	gone     []string
	codes    []pool.Code
	keep     []pool.PutItem
	keepIdx  []int
	keepCode []pool.Code
}

// NewFaultMover returns inner with faults injected; store is the pool the
// inner mover moves pages to and from (missing pages are removed from it).
func NewFaultMover(inner PageMover, store pool.Store, f Faults) *FaultMover {
	return &FaultMover{inner: inner, store: store, faults: f,
		rng: rand.New(rand.NewPCG(f.Seed, f.Seed^0x6b76637466617574))}
}

// Counts returns the faults injected so far.
func (m *FaultMover) Counts() FaultCounts {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts
}

// MaxBatch is the inner mover's.
func (m *FaultMover) MaxBatch() int { return m.inner.MaxBatch() }

// Load removes each page from the pool with probability MissingRate, then
// loads the batch through the inner mover.
func (m *FaultMover) Load(ctx context.Context, t *stats.PhaseTimer, keys []string, pages [][]byte, n []int64) error {
	sleep(m.faults.PoolLatency)
	if m.faults.MissingRate > 0 {
		if err := m.vanish(ctx, keys); err != nil {
			return err
		}
	}
	return m.inner.Load(ctx, t, keys, pages, n)
}

// vanish removes the pages drawn missing from the pool.
func (m *FaultMover) vanish(ctx context.Context, keys []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gone = m.gone[:0]
	for _, k := range keys {
		if m.rng.Float64() < m.faults.MissingRate {
			m.gone = append(m.gone, k)
		}
	}
	if len(m.gone) == 0 {
		return nil
	}
	m.codes = resize(m.codes, len(m.gone))
	if err := m.store.Remove(ctx, m.gone, true, m.codes); err != nil {
		return fmt.Errorf("injecting %d missing pages: %w", len(m.gone), err)
	}
	m.counts.MissingPages += int64(len(m.gone))
	clear(m.gone)
	return nil
}

// Save fails each put with probability PutErrorRate (pool.TransferFail,
// nothing stored) and puts the others through the inner mover.
func (m *FaultMover) Save(ctx context.Context, t *stats.PhaseTimer, items []pool.PutItem, results []pool.Code) error {
	sleep(m.faults.PoolLatency)
	if m.faults.PutErrorRate <= 0 {
		return m.inner.Save(ctx, t, items, results)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keep, m.keepIdx = m.keep[:0], m.keepIdx[:0]
	for i, it := range items {
		if m.rng.Float64() < m.faults.PutErrorRate {
			results[i] = pool.TransferFail
			m.counts.PutErrors++
			continue
		}
		m.keep, m.keepIdx = append(m.keep, it), append(m.keepIdx, i)
	}
	if len(m.keep) == 0 {
		return nil
	}
	m.keepCode = resize(m.keepCode, len(m.keep))
	err := m.inner.Save(ctx, t, m.keep, m.keepCode)
	for j, i := range m.keepIdx {
		results[i] = m.keepCode[j]
	}
	clear(m.keep)
	return err
}

func sleep(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

// SlowProber adds a real delay to every lookup of the prober it wraps
// (Faults.PoolLatency on the batched exist).
type SlowProber struct {
	Prober
	Delay time.Duration
}

// CountPrefixHit sleeps for Delay, then asks the wrapped prober.
func (p SlowProber) CountPrefixHit(ctx context.Context, hashes []keys.Hash) (int, []bool, error) {
	sleep(p.Delay)
	return p.Prober.CountPrefixHit(ctx, hashes)
}
