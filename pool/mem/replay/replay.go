// Package replay runs an operation log recorded on a real Mooncake master
// (the format of testdata/mooncake-real/eviction-*.json, described in
// that folder's README.md) against kvctl's embedded pool, on a virtual
// clock that follows the log's sleeps, and reports what the pool holds
// afterwards, so that the pool's leases and eviction can be held to the
// master's and an operator can ask what a master would evict.
//
// The pool is one segment of segment_bytes with the recording's master
// flags (defaults for the others, the master's). Each key of a put is its
// own put call, as the recorder's client made them; every call (a put of
// one key, an exist, a get, a remove of one key) advances the clock by
// CallGap; a sleep advances it by its ms. The master's eviction thread is
// modelled by an eviction step every EvictionInterval of virtual time, at
// the tick, which evicts only when the pool is above its high watermark
// or an allocation failed since the last success.
package replay

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// CallGap is the virtual time each call takes. The recorder's calls were
// back to back, well under a millisecond apart.
const CallGap = 10 * time.Microsecond

// epoch is the virtual clock's start; eviction ticks fall on multiples of
// mem.EvictionInterval after it.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Options returns the embedded pool's options for rec with the given seed
// (manual eviction, on no clock yet).
func (rec *Recording) Options(seed uint64) (mem.Options, error) {
	f, err := rec.Flags()
	if err != nil {
		return mem.Options{}, err
	}
	if _, given := rec.MasterFlags["eviction_ratio"]; given && f.EvictionRatio == 0 {
		return mem.Options{}, fmt.Errorf("master_flags.eviction_ratio=0: the embedded pool needs a ratio in (0, 1]")
	}
	if _, given := rec.MasterFlags["eviction_high_watermark_ratio"]; given && f.HighWatermark == 0 {
		return mem.Options{}, fmt.Errorf("master_flags.eviction_high_watermark_ratio=0: the embedded pool needs a watermark in (0, 1]")
	}
	return mem.Options{
		Capacity:       rec.SegmentBytes,
		Segments:       1,
		ArenaSize:      alignUp(rec.SegmentBytes, mem.Granule),
		LeaseTTL:       f.LeaseTTL,
		SoftPinTTL:     f.SoftPinTTL,
		EvictionRatio:  f.EvictionRatio,
		HighWatermark:  f.HighWatermark,
		KeepSoftPinned: f.KeepSoftPinned,
		Eviction:       mem.EvictManual,
		Seed:           seed,
	}, nil
}

func alignUp(n, to int64) int64 { return (n + to - 1) / to * to }

// Run replays rec's ops once into a fresh embedded pool seeded with seed
// and returns the outcome.
func Run(ctx context.Context, rec *Recording, seed uint64) (Outcome, error) {
	opts, err := rec.Options(seed)
	if err != nil {
		return Outcome{}, err
	}
	clk := &clock{now: epoch, next: epoch.Add(mem.EvictionInterval)}
	opts.Now = clk.Now
	st, err := mem.New(opts)
	if err != nil {
		return Outcome{}, fmt.Errorf("opening the pool for %s: %w", rec.Scenario, err)
	}
	defer st.Close()
	clk.tick = func() { st.RunEvictionStep() }
	r := &runner{st: st, clk: clk, put: map[string]bool{}, out: Outcome{PutFailures: []PutFailure{}}}
	for i, op := range rec.Ops {
		rc, err := r.do(ctx, op)
		if err != nil {
			return Outcome{}, fmt.Errorf("op %d (%s): %w", i, op.Op, err)
		}
		r.out.OpRC = append(r.out.OpRC, rc)
	}
	return r.finish(ctx)
}

// clock is the virtual clock; advancing it runs the eviction ticks it
// passes, each at its own instant.
type clock struct {
	now, next time.Time
	tick      func()
}

// Now is the pool's clock.
func (c *clock) Now() time.Time { return c.now }

func (c *clock) advance(d time.Duration) {
	to := c.now.Add(d)
	for !c.next.After(to) {
		c.now = c.next
		c.tick()
		c.next = c.next.Add(mem.EvictionInterval)
	}
	c.now = to
}

// runner replays one run.
type runner struct {
	st  *mem.Store
	clk *clock
	put map[string]bool // keys put with rc 0 and not removed with rc 0
	big int64           // the largest value put, the size of get buffers
	out Outcome
}

func (r *runner) do(ctx context.Context, op Op) (map[string]int, error) {
	switch op.Op {
	case "put":
		return nil, r.doPut(ctx, op)
	case "exist":
		return r.doExist(ctx, op.Keys)
	case "get":
		return r.doGet(ctx, op.Keys)
	case "remove":
		return r.doRemove(ctx, op.Keys, op.Force)
	case "sleep":
		r.clk.advance(time.Duration(op.MS) * time.Millisecond)
		return nil, nil
	case "snapshot":
		keys, err := r.keys(ctx)
		if r.out.Snapshots == nil {
			r.out.Snapshots = map[string][]string{}
		}
		r.out.Snapshots[op.Label] = keys
		return nil, err
	}
	return nil, fmt.Errorf("unknown op %q", op.Op)
}

func (r *runner) doPut(ctx context.Context, op Op) error {
	var opts pool.PutOptions
	if op.SoftPin {
		opts.SoftPin = pool.SoftPinEnable
	}
	opts.GroupID = op.Group
	value := make([]byte, op.Bytes)
	r.big = max(r.big, op.Bytes)
	codes := make([]pool.Code, 1)
	for _, k := range op.Keys {
		r.clk.advance(CallGap)
		if err := r.st.Put(ctx, []pool.PutItem{{Key: k, Value: value, Options: opts}}, codes); err != nil {
			return err
		}
		if codes[0] != pool.OK {
			r.out.PutFailures = append(r.out.PutFailures, PutFailure{Key: k, RC: int(codes[0])})
			continue
		}
		r.put[k] = true
	}
	return nil
}

func (r *runner) doExist(ctx context.Context, keys []string) (map[string]int, error) {
	r.clk.advance(CallGap)
	status := make([]int, len(keys))
	if err := r.st.ExistLeasing(ctx, keys, status); err != nil {
		return nil, err
	}
	rc := map[string]int{}
	for i, k := range keys {
		rc[k] = status[i]
	}
	return rc, nil
}

func (r *runner) doGet(ctx context.Context, keys []string) (map[string]int, error) {
	r.clk.advance(CallGap)
	bufs, n := make([][]byte, len(keys)), make([]int64, len(keys))
	for i := range bufs {
		bufs[i] = make([]byte, r.big)
	}
	if err := r.st.Get(ctx, keys, bufs, n); err != nil {
		return nil, err
	}
	rc := map[string]int{}
	for i, k := range keys {
		rc[k] = int(n[i])
	}
	return rc, nil
}

func (r *runner) doRemove(ctx context.Context, keys []string, force bool) (map[string]int, error) {
	rc := map[string]int{}
	codes := make([]pool.Code, 1)
	for _, k := range keys {
		r.clk.advance(CallGap)
		if err := r.st.Remove(ctx, []string{k}, force, codes); err != nil {
			return nil, err
		}
		rc[k] = int(codes[0])
		if codes[0] == pool.OK {
			delete(r.put, k)
		}
	}
	return rc, nil
}

// keys lists the pool's keys, sorted; it grants no lease, as the admin
// API's /get_all_keys does not.
func (r *runner) keys(ctx context.Context) ([]string, error) {
	keys := []string{}
	err := r.st.List(ctx, "", func(k string) error {
		keys = append(keys, k)
		return nil
	})
	slices.Sort(keys)
	return keys, err
}

func (r *runner) finish(ctx context.Context) (Outcome, error) {
	keys, err := r.keys(ctx)
	if err != nil {
		return Outcome{}, err
	}
	r.out.PresentAfter = keys
	r.out.Evicted = []string{}
	for k := range r.put {
		if _, ok := slices.BinarySearch(keys, k); !ok {
			r.out.Evicted = append(r.out.Evicted, k)
		}
	}
	slices.Sort(r.out.Evicted)
	return r.out, nil
}
