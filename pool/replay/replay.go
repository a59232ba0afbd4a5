// Package replay runs an operation log recorded on a real Mooncake master
// (the format of testdata/mooncake-real/eviction-*.json, described in
// that folder's README.md) against a pool that models the master (kvctl's
// embedded pool), on a virtual clock that follows the log's sleeps, and
// reports what the pool holds afterwards, so that the pool's leases and
// eviction can be held to the master's and an operator can ask what a
// master would evict.
//
// The caller opens the pool (an Opener, so that this package needs no
// backend): one segment of segment_bytes with the recording's master
// flags (defaults for the others, the master's), on the given clock, with
// eviction run only by EvictNow. Each key of a put is its own put call, as
// the recorder's client made them; every call (a put of one key, an exist,
// a get, a remove of one key) advances the clock by CallGap; a sleep
// advances it by its ms. The master's eviction thread is modelled by
// EvictNow every EvictionInterval of virtual time, at the tick (Clock,
// which holes --simulate runs on the trace's arrival times too); the pool
// evicts then only when it is above its high watermark or an allocation
// failed since the last success.
package replay

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// CallGap is the virtual time each call takes. The recorder's calls were
// back to back, well under a millisecond apart.
const CallGap = 10 * time.Microsecond

// Pool is what a replay needs of a pool: the leasing exist, listing (which
// grants no lease) and eviction run by the caller.
type Pool interface {
	pool.Store
	pool.LeasingExister
	pool.Lister
	pool.Evicter
}

// PoolConfig is the pool a recording asks for.
type PoolConfig struct {
	// SegmentBytes is the one segment's size, the pool's capacity.
	SegmentBytes int64
	// Flags are the master's behaviour flags; zero fields are the
	// master's defaults.
	Flags Flags
	// Seed seeds the pool's random draws (the master's random shards).
	Seed uint64
	// Now is the virtual clock the pool must read.
	Now func() time.Time
}

// Opener opens the pool a replay runs against, with eviction run only by
// EvictNow.
type Opener func(PoolConfig) (Pool, error)

// Config returns the pool rec asks for, seeded with seed, on no clock yet.
func (rec *Recording) Config(seed uint64) (PoolConfig, error) {
	f, err := rec.Flags()
	if err != nil {
		return PoolConfig{}, err
	}
	return PoolConfig{SegmentBytes: rec.SegmentBytes, Flags: f, Seed: seed}, nil
}

// Run replays rec's ops once into a fresh pool that open opens, seeded
// with seed, and returns the outcome.
func Run(ctx context.Context, rec *Recording, seed uint64, open Opener) (Outcome, error) {
	cfg, err := rec.Config(seed)
	if err != nil {
		return Outcome{}, err
	}
	clk := NewClock()
	cfg.Now = clk.Now
	st, err := open(cfg)
	if err != nil {
		return Outcome{}, fmt.Errorf("opening the pool for %s: %w", rec.Scenario, err)
	}
	defer st.Close()
	clk.OnTick(st.EvictNow)
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

// runner replays one run.
type runner struct {
	st  Pool
	clk *Clock
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
		r.clk.Advance(time.Duration(op.MS) * time.Millisecond)
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
		r.clk.Advance(CallGap)
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
	r.clk.Advance(CallGap)
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
	r.clk.Advance(CallGap)
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
		r.clk.Advance(CallGap)
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
