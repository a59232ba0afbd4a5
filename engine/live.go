package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvctl/kvctl/internal/ctxwait"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/workload"
)

// LiveOptions configure a Live engine.
type LiveOptions struct {
	// RealTime paces the engine: the virtual clock never runs ahead of
	// wall time, so a pass's modelled cost elapses for real before the
	// next pass (TTFT and inter-token latency are then felt by clients).
	// Without it the engine runs passes as fast as the CPU allows while
	// work exists. Either way the clock catches up with wall time when the
	// engine is idle, so pool leases and eviction age in real time.
	RealTime bool
	// KVHoldTimeout ends a hold (SubmitOptions.HoldAs) its KV was not
	// taken from for this long, in wall time; zero holds until taken or
	// released.
	KVHoldTimeout time.Duration
}

// Live is the engine in online mode: requests are submitted while it runs
// (Submit) instead of read from a trace. One goroutine (Run) owns the KV
// cache, the scheduler and the connector and runs the same passes as a
// replay (see Run), idling while no request is in flight. Config.Clock is
// its clock (share it with the pool, see Config.Clock);
// Config.MemoryLimit is ignored.
type Live struct {
	c       *cluster
	opts    LiveOptions
	submits chan *liveReq
	cancels chan *liveReq
	ops     chan func()   // run on the engine goroutine (call)
	done    chan struct{} // closed when Run returns
	started atomic.Bool
	seq     atomic.Int64
	start   time.Time // wall time of Run's start
	active  []*liveReq
	// cancelled and generated count for LiveStats.
	cancelled, generated int64
	// held are the completed requests whose KV is held, by name; the
	// kv counters count for LiveStats.
	held                                      map[string]heldKV
	kvSent, kvSentBlocks, kvExpired           int64
	kvReleased, kvReceived, kvInstalledBlocks int64

	mu   sync.Mutex
	snap LiveStats
}

// liveReq is a submitted request; after Submit hands it over only the
// engine goroutine touches it.
type liveReq struct {
	w         workload.Request
	stream    *LiveStream
	owner     *engine
	r         *request
	sent      int // tokens pushed to the stream
	cancelled bool
	holdAs    string    // SubmitOptions.HoldAs
	kv        *KVBlocks // SubmitOptions.KV
}

// LiveStats are a Live engine's counters, updated after every pass.
type LiveStats struct {
	// Requests were submitted and arrived; Completed produced all their
	// tokens; Failed were refused, cancelled or lost to a stop; Cancelled
	// (in Failed) were ended by their context.
	Requests, Completed, Failed, Cancelled int64
	// Waiting and Running are the requests queued and admitted now.
	Waiting, Running int
	// PromptTokens of every arrived request; ComputedPromptTokens every
	// prompt token a forward pass computed (recomputations included);
	// LocalHitTokens and PoolHitTokens those of completed requests served
	// by the local prefix cache and by loads from the pool.
	PromptTokens, ComputedPromptTokens, LocalHitTokens, PoolHitTokens int64
	// GeneratedTokens were streamed to clients.
	GeneratedTokens int64
	// Restarts are readmissions after a failed load, Preemptions after
	// running out of pages; VerifyMismatches are loaded pages that differ
	// from the model's.
	Restarts, Preemptions, VerifyMismatches, Iterations int64
	// VirtualMS is the engine clock in milliseconds.
	VirtualMS float64
	// KVHeld are the holds now (SubmitOptions.HoldAs); KVSent were taken
	// (TakeKV), KVSentBlocks their blocks; KVExpired ended at
	// LiveOptions.KVHoldTimeout, KVReleased by ReleaseKV.
	KVHeld                                      int
	KVSent, KVSentBlocks, KVExpired, KVReleased int64
	// KVReceived are the requests whose transferred KV (SubmitOptions.KV)
	// was installed, KVInstalledBlocks its blocks.
	KVReceived, KVInstalledBlocks int64
}

// NewLive returns a Live engine for cfg (see Config; Pool is required).
// Start it with Run.
func NewLive(cfg Config, opts LiveOptions) (*Live, error) {
	if cfg.Concurrency != 0 {
		return nil, &configError{fmt.Errorf("concurrency %d replays closed loop: live clients bring their own", cfg.Concurrency)}
	}
	if cfg.Disagg.On() {
		return nil, &configError{errors.New("disagg runs in a replay (Run) only")}
	}
	c, err := newCluster(cfg)
	if err != nil {
		return nil, err
	}
	c.owners[0].nextArrivalMS = math.Inf(1) // arrivals are never known ahead
	return &Live{c: c, opts: opts, submits: make(chan *liveReq), cancels: make(chan *liveReq),
		ops: make(chan func()), done: make(chan struct{}), held: map[string]heldKV{}}, nil
}

// Submit hands request w to the engine and returns its output stream. w's
// Tokens are hashed on the engine goroutine: the caller must not change
// them after Submit. An empty w.ID gets a unique one. When ctx ends
// before the request completed, the engine frees it and the stream ends
// with ErrCancelled. Submit fails with ErrStopped once Run returned.
func (l *Live) Submit(ctx context.Context, w workload.Request) (*LiveStream, error) {
	return l.submit(ctx, &liveReq{w: w, stream: newLiveStream()})
}

// submit hands lr to the engine (Submit).
func (l *Live) submit(ctx context.Context, lr *liveReq) (*LiveStream, error) {
	if lr.w.ID == "" {
		lr.w.ID = "live-" + strconv.FormatInt(l.seq.Add(1), 10)
	}
	select {
	case <-l.done:
		return nil, ErrStopped
	default:
	}
	stop := context.AfterFunc(ctx, func() {
		select {
		case l.cancels <- lr:
		case <-l.done:
		}
	})
	lr.stream.release = stop
	select {
	case l.submits <- lr:
		return lr.stream, nil
	case <-l.done:
		stop()
		return nil, ErrStopped
	}
}

// Stats returns the counters as of the last pass.
func (l *Live) Stats() LiveStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.snap
}

// Transfers returns the cumulative load and save statistics of the
// connector's worker (for stats.NewLoadCollector).
func (l *Live) Transfers() []stats.Load {
	s := l.c.owners[0].stats
	return []stats.Load{s.Load.Total(), s.Save.Total()}
}

// Holes returns the cumulative prefix-hole statistics of the connector's
// lookups (for stats.NewHolesCollector).
func (l *Live) Holes() stats.Holes { return l.c.owners[0].stats.Holes.Total() }

// Done is closed when Run has returned.
func (l *Live) Done() <-chan struct{} { return l.done }

// Run runs the engine until ctx ends (it returns nil then) or a pass
// fails (it returns the error): a bad pool, a broken invariant. Requests
// still in flight end with ErrStopped, or with the error. Run closes what
// the engine opened, but not the pool. It may be called once.
func (l *Live) Run(ctx context.Context) error {
	if l.started.Swap(true) {
		return fmt.Errorf("engine: live engine already ran")
	}
	l.start = time.Now()
	err := l.loop(ctx)
	if ctx.Err() != nil {
		err = nil
	}
	stopErr := ErrStopped
	if err != nil {
		stopErr = fmt.Errorf("%w: %w", ErrStopped, err)
	}
	for _, lr := range l.active {
		l.first().counts.failed++
		lr.stream.end(LiveUsage{}, stopErr)
	}
	l.active = nil
	l.publish()
	close(l.done)
	l.first().stats.Flush()
	if _, rerr := l.c.removeWritten(ctx); rerr != nil && err == nil {
		err = rerr
	}
	if cerr := l.c.close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

func (l *Live) first() *engine { return l.c.owners[0] }

// loop takes submissions, blocking while idle, and runs passes.
func (l *Live) loop(ctx context.Context) error {
	for {
		if !l.receive(ctx) {
			return nil
		}
		if l.c.idle() {
			continue
		}
		if err := stepOwners(ctx, l.c.owners); err != nil {
			return err
		}
		if l.opts.RealTime && !l.pace(ctx) {
			return nil
		}
		l.unstick()
		l.deliver()
		l.publish()
	}
}

// receive takes the pending submissions and cancellations, waiting for
// one while the engine is idle, and moves the clock up to wall time. It
// reports false when ctx ended.
func (l *Live) receive(ctx context.Context) bool {
	if l.c.idle() {
		select {
		case <-ctx.Done():
			return false
		case lr := <-l.submits:
			l.syncClock()
			l.arrive(ctx, lr)
		case lr := <-l.cancels:
			l.cancel(lr)
		case fn := <-l.ops:
			fn()
		}
	}
	l.syncClock()
	for {
		select {
		case <-ctx.Done():
			return false
		case lr := <-l.submits:
			l.arrive(ctx, lr)
		case lr := <-l.cancels:
			l.cancel(lr)
		case fn := <-l.ops:
			fn()
		default:
			l.publish()
			return true
		}
	}
}

// syncClock moves the virtual clock up to the wall time since Run began.
func (l *Live) syncClock() {
	l.first().clock.AdvanceTo(float64(time.Since(l.start)) / float64(time.Millisecond))
}

// pace sleeps while the virtual clock is ahead of wall time; it reports
// false when ctx ended.
func (l *Live) pace(ctx context.Context) bool {
	ahead := l.first().clock.Elapsed() - time.Since(l.start)
	if ahead <= 0 {
		return true
	}
	return ctxwait.Sleep(ctx, ahead)
}

// publish copies the counters for Stats.
func (l *Live) publish() {
	c := l.first().counts
	waiting, running := 0, 0
	for _, e := range l.c.owners {
		waiting += e.waiting.len()
		running += len(e.running) + len(e.async.parked)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &l.snap
	s.Requests, s.Completed, s.Failed = c.requests, c.completed, c.failed
	s.Waiting, s.Running = waiting, running
	s.PromptTokens, s.ComputedPromptTokens = c.promptTokens, c.computedPromptTokens
	s.LocalHitTokens, s.PoolHitTokens = c.localHitTokens, c.poolHitTokens
	s.Restarts, s.Preemptions, s.VerifyMismatches, s.Iterations = c.restarts, c.preemptions, c.mismatches, c.iterations
	s.Cancelled, s.GeneratedTokens = l.cancelled, l.generated
	s.VirtualMS = l.first().clock.ElapsedMS()
	s.KVHeld, s.KVSent, s.KVSentBlocks = len(l.held), l.kvSent, l.kvSentBlocks
	s.KVExpired, s.KVReleased = l.kvExpired, l.kvReleased
	s.KVReceived, s.KVInstalledBlocks = l.kvReceived, l.kvInstalledBlocks
}
