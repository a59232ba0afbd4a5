package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// engine is one replay's state: the KV cache manager, the scheduler's
// queues, the connector's halves and the counters of the report.
// phaseCPUEvery is how sparsely the transfer phases read the thread CPU
// clock once a run is past its first operations (stats.LoadRecorder's
// SampleCPU): its system calls were about 6% of a replay's CPU time when
// every operation read it, and still 0.4 s of the engine goroutine's
// samples at one in 16; at one in 64 the whole-trace replay took 5.20 s
// against 5.37 s (medians of eight interleaved runs, 2026-12-03).
const phaseCPUEvery = 64

type engine struct {
	cfg      Config
	perBlock int
	clock    *Clock
	model    Model
	pages    *pageMemory
	kv       *kvCache
	sched    *connector.Scheduler
	worker   *connector.Worker   // rank 0's: lookups
	workers  []*connector.Worker // one per rank (tensor parallelism)
	faults   *connector.FaultMover
	chains   *chainPool // where retire recycles chains; nil: nowhere
	allocs   *allocRoom // where retire recycles block lists; nil: nowhere
	// written records the pages the saves stored, with Config.RemovePages.
	written *writtenPages
	// outcome is shared by the owners of an attention-DP run.
	*outcome

	evict       func()
	nextEvictMS float64

	async asyncLoads
	// reserved is the sum of the admitted requests' completion bounds.
	reserved int

	waiting   queue
	running   []*request
	finishing []*request
	batch     []*request
	views     []connector.Scheduled
	token     [1]int64

	closers []func() error
	// onFinish, when set, is told of each request that produced all its
	// tokens, before its pages are freed (a disaggregated run's hand-off).
	onFinish func(*request)
}

// outcome is what every owner of a run adds to: the counters, latencies
// and failures of the report, and the connector's statistics.
type outcome struct {
	counts        counters
	lat           latencies
	failed        []FailedRequest
	stats         *connector.Stats
	timeline      *stats.Timeline
	nextArrivalMS float64 // the next arrival not yet admitted, +Inf with none
	balance       prefillBalance
}

// counters are the report's request and token counters.
type counters struct {
	requests, completed, failed        int64
	promptTokens, computedPromptTokens int64
	localHitTokens, poolHitTokens      int64
	restarts, preemptions, mismatches  int64
	iterations                         int64
	completedPromptTokens              int64
	parkedLoads, asyncLoadFailures     int64
	asyncQueuedLoadFailures            int64
	asyncWaitMS                        float64
	notContextOnly, reservationWaits   int64
	offerDeferrals, unchargedParks     int64
	poolFailures                       poolFailures
	// outputTokens are the tokens generated; firstArrivalMS is when the
	// first request arrived, lastTokenMS when the last token came out.
	outputTokens                int64
	firstArrivalMS, lastTokenMS float64
}

// inFlight counts the requests arrived and neither completed nor failed.
func (c *counters) inFlight() int64 { return c.requests - c.completed - c.failed }

// newEngine returns a single-owner engine for cfg.
func newEngine(cfg Config) (*engine, error) {
	cfg, err := cfg.forRun()
	if err != nil {
		return nil, err
	}
	return newOwner(cfg, newOutcome(cfg), 0)
}

func newOutcome(cfg Config) *outcome {
	st := connector.NewStats(cfg.StatsInterval, cfg.Clock.Now, stats.NoRank, cfg.StatsLine)
	st.Load.SampleCPU(phaseCPUEvery)
	st.Save.SampleCPU(phaseCPUEvery)
	return &outcome{stats: st, timeline: newTimeline(cfg)}
}

// newOwner returns owner index of a run (one of Config.AttentionDP, each
// with its own KV cache and connector) whose results go to out; cfg has
// its defaults.
func newOwner(cfg Config, out *outcome, index int) (*engine, error) {
	cfg.Faults.Seed += uint64(index)
	l := cfg.Keys.Layout
	e := &engine{cfg: cfg, perBlock: l.TokensPerBlock, clock: cfg.Clock, model: Model{Regions: cfg.GPU.Regions}, outcome: out}
	if cfg.OutputTokens > 0 {
		e.lat.itl = make([]float32, 0, cfg.OutputTokens/int64(max(1, cfg.AttentionDP)))
	}
	var err error
	if e.pages, err = newPageMemory(allRankSlots(l), cfg.GPU.Blocks); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e.kv = newKVCache(e.pages, e.perBlock, cfg.Scheduler.ReuseMatchAlignment)
	if err := e.newConnector(connector.PageSlots(l, l.Ranks[0])); err != nil {
		return nil, errors.Join(err, e.close())
	}
	e.evict = evictFunc(cfg.Pool)
	return e, nil
}

// newConnector makes the connector: one worker half per rank, sharing
// one page mover (the ranks run one after the other), and the scheduler
// half, whose lookups go through rank 0's worker (asking for every rank's
// shard).
func (e *engine) newConnector(slots []connector.PageSlot) error {
	cfg := e.cfg
	mover, err := e.newMover(slots)
	if err != nil {
		return err
	}
	if cfg.RemovePages {
		e.written = &writtenPages{PageMover: mover}
		mover = e.written
	}
	if cfg.Faults.Active() {
		e.faults = connector.NewFaultMover(mover, cfg.Pool, cfg.Faults)
		mover = e.faults
	}
	per := len(slots)
	for i, rank := range cfg.Keys.Layout.Ranks {
		w, err := connector.NewWorker(connector.WorkerOptions{
			Store: cfg.Pool, Keys: cfg.Keys, Rank: rank,
			Pages: rankPages{e.pages, i * per}, Mover: mover, SoftPinTTL: cfg.Connector.SoftPinTTL, GroupBlocks: cfg.Connector.GroupBlocks,
			LoadStats: e.stats.Load, SaveStats: e.stats.Save, PoolFailed: e.poolFailed,
		})
		if err != nil {
			return fmt.Errorf("engine: rank %d: %w", rank, err)
		}
		e.workers = append(e.workers, w)
	}
	e.worker = e.workers[0]
	var prober connector.Prober = e.worker
	if cfg.Faults.PoolLatency > 0 {
		prober = connector.SlowProber{Prober: e.worker, Delay: cfg.Faults.PoolLatency}
	}
	if cfg.Observer != nil {
		prober = observedProber{Prober: prober, clock: e.clock, obs: cfg.Observer}
	}
	e.sched = connector.NewScheduler(connector.SchedulerOptions{
		Loads: cfg.Connector.loads(),
		Saves: cfg.Connector.saves(),
		Holes: e.stats.Holes,
	}, prober)
	return nil
}

// newMover returns the worker's page mover: Connector.Mover; a device
// mover through package transfer on GPU.Device, which registers the
// pages' memory with the device; else a host mover.
func (e *engine) newMover(slots []connector.PageSlot) (connector.PageMover, error) {
	cfg := e.cfg.Connector
	switch {
	case cfg.Mover != nil:
		return cfg.Mover, nil
	case e.cfg.GPU.Device != nil:
		m, err := connector.NewDeviceMover(e.cfg.GPU.Device, e.cfg.Pool, slots, connector.DeviceMoverOptions{
			Batch: cfg.TransferBatchSize, StagingBytes: cfg.StagingBufferBytes, Direct: !cfg.StageThroughHost, Mode: cfg.CopyMode,
			PageMemory: e.pages.buffers()})
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		e.closers = append(e.closers, m.Close)
		return m, nil
	}
	var maxBytes int64
	for _, s := range slots {
		maxBytes = max(maxBytes, s.Bytes)
	}
	m := connector.NewHostMover(e.cfg.Pool, cfg.TransferBatchSize, cfg.StageThroughHost,
		cfg.StagingBufferBytes, maxBytes)
	bufs := m.StagingBuffers()
	if bufs == nil {
		bufs = e.pages.mem
	}
	if err := e.registerWithPool(bufs); err != nil {
		return nil, err
	}
	return m, nil
}

// registerWithPool registers bufs (the pages, or the host mover's
// staging: what the pool's calls see) with the pool when it takes buffer
// registrations (pool.BufferRegistrar), so that its gets and puts move
// values in place; they are unregistered when the engine closes.
func (e *engine) registerWithPool(bufs [][]byte) error {
	r, ok := e.cfg.Pool.(pool.BufferRegistrar)
	if !ok {
		return nil
	}
	for _, b := range bufs {
		unregister, err := r.RegisterBuffer(b)
		if err != nil {
			return fmt.Errorf("engine: registering %d bytes of page memory with the pool: %w", len(b), err)
		}
		e.closers = append(e.closers, unregister)
	}
	return nil
}

// close releases what the engine opened, newest first.
func (e *engine) close() error {
	var errs []error
	for i := len(e.closers) - 1; i >= 0; i-- {
		errs = append(errs, e.closers[i]())
	}
	e.closers = nil
	return errors.Join(errs...)
}

// tickEviction runs the pool's eviction step every EvictEvery of virtual
// time.
func (e *engine) tickEviction() {
	if e.evict == nil {
		return
	}
	now := e.clock.ElapsedMS()
	if now < e.nextEvictMS {
		return
	}
	e.evict()
	e.nextEvictMS = now + float64(e.cfg.EvictEvery)/float64(time.Millisecond)
}
