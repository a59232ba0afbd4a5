package engine

import (
	"fmt"

	"github.com/kvctl/kvctl/connector"
)

// poolFailures count the pool calls that failed as a whole and that the
// run went on from, as upstream's connector does (connector.Worker: a
// lookup misses, a load batch is missing, a save batch is dropped).
type poolFailures struct {
	calls int64
	// firstMS and firstRequest are the virtual time of the first failure
	// and the number of requests arrived by then.
	firstMS      float64
	firstRequest int64
	// warned holds the calls (connector.CallLookup, ...) already warned of.
	warned map[string]bool
}

// poolFailed counts a pool call that failed as a whole and warns, through
// Config.StatsLine, of the first failure of each kind of call.
func (e *engine) poolFailed(call string, err error) {
	f := &e.counts.poolFailures
	if f.calls == 0 {
		f.firstMS, f.firstRequest = e.clock.ElapsedMS(), e.counts.requests
	}
	f.calls++
	if f.warned[call] || e.cfg.StatsLine == nil {
		return
	}
	if f.warned == nil {
		f.warned = map[string]bool{}
	}
	f.warned[call] = true
	e.cfg.StatsLine(fmt.Sprintf("warning: pool %s failed at %.0f ms (request %d): %v; %s, and the run goes on (the report counts every failed pool call)",
		call, e.clock.ElapsedMS(), e.counts.requests, err, consequence[call]))
}

// consequence is what the run does after a failed call, as upstream.
var consequence = map[string]string{
	connector.CallLookup: "counted as a miss",
	connector.CallLoad:   "its pages count as missing (the request restarts)",
	connector.CallSave:   "its pages are dropped",
}

// report fills the report's pool failure fields.
func (f *poolFailures) report(rep *Report) {
	rep.PoolCallFailures = f.calls
	if f.calls > 0 {
		ms, req := f.firstMS, f.firstRequest
		rep.FirstPoolFailureAtMS, rep.FirstPoolFailureRequest = &ms, &req
	}
}
