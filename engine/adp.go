package engine

import (
	"context"
	"errors"
	"time"
)

// cluster is the owners of a run: one engine, or Config.AttentionDP
// engines under attention data parallelism. Each owner has its own KV
// cache, scheduler queues, batch and connector halves (its own scheduler
// half and worker); they share the pool, the key space (w1r0: every owner
// keys whole pages), the virtual clock and the report. A router places
// each arriving request on an owner by Config.Routing (route). The owners
// run each pass in lock step, one after the other on one goroutine, so a
// run is deterministic; the pass costs the slowest owner's time.
type cluster struct {
	owners  []*engine
	routing Routing
	placed  []int64 // requests routed to each owner
	last    int     // the owner picked last
}

func newCluster(cfg Config) (*cluster, error) {
	cfg, err := cfg.forRun()
	if err != nil {
		return nil, err
	}
	out := newOutcome(cfg)
	n := max(1, cfg.AttentionDP)
	c := &cluster{routing: cfg.Routing, placed: make([]int64, n), last: n - 1}
	for i := range c.placed {
		e, err := newOwner(cfg, out, i)
		if err != nil {
			return nil, errors.Join(err, c.close())
		}
		c.owners = append(c.owners, e)
	}
	return c, nil
}

// idle reports whether no owner has work: nothing waiting, running,
// finishing or parked.
func (c *cluster) idle() bool {
	for _, e := range c.owners {
		if len(e.running) > 0 || e.waiting.len() > 0 || len(e.finishing) > 0 || len(e.async.parked) > 0 {
			return false
		}
	}
	return true
}

// report is the run's report: the owners share its counters; fault counts
// are summed.
func (c *cluster) report(ctx context.Context, wall time.Duration) Report {
	rep := c.owners[0].report(ctx, wall)
	rep.FaultMissingPages, rep.FaultPutErrors = 0, 0
	for _, e := range c.owners {
		if e.faults != nil {
			fc := e.faults.Counts()
			rep.FaultMissingPages += fc.MissingPages
			rep.FaultPutErrors += fc.PutErrors
		}
	}
	if len(c.owners) > 1 {
		rep.AttentionDP, rep.ADPRouting = len(c.owners), c.routing
		rep.OwnerRequests = c.placed
		rep.OwnerPrefillTokens = c.owners[0].balance.perOwner
		rep.PrefillPerPass = c.owners[0].balance.report()
	}
	return rep
}

// close closes every owner.
func (c *cluster) close() error {
	var errs []error
	for _, e := range c.owners {
		errs = append(errs, e.close())
	}
	return errors.Join(errs...)
}
