package engine

import (
	"context"
	"slices"
	"time"
)

// DisaggReport is a disaggregated run's part of the Report
// (Config.Disagg). Times are modelled milliseconds.
type DisaggReport struct {
	ContextServers      int     `json:"context_servers"`
	GenerationServers   int     `json:"generation_servers"`
	KVTransferGBps      float64 `json:"kv_transfer_gbps"`
	KVTransferTimeoutMS float64 `json:"kv_transfer_timeout_ms"`
	// Context is the context servers' side: TTFT is each request's first
	// token there. Generation is the generation servers': TTFT is end to
	// end, the first token reaching the client once the KV landed; ITL is
	// the decode steps'.
	Context    RoleReport `json:"context"`
	Generation RoleReport `json:"generation"`
	// KVTransfer is the transfers that landed.
	KVTransfer TransferReport `json:"kv_transfer"`
	// Outcomes is how every request ended.
	Outcomes Outcomes `json:"outcomes"`
}

// RoleReport is one role's servers in a disaggregated run.
type RoleReport struct {
	// ServerRequests are the requests (legs) placed on each server,
	// Completed the legs each role finished (context: first token out).
	ServerRequests []int64     `json:"server_requests"`
	Completed      int64       `json:"completed"`
	Iterations     int64       `json:"iterations"`
	Preemptions    int64       `json:"preemptions"`
	TTFTMS         Percentiles `json:"ttft_ms"`
	ITLMS          Percentiles `json:"itl_ms"`
}

// TransferReport is the KV transfers of a disaggregated run that landed:
// their number, bytes (in all and per transfer) and time, from the
// receive's start (its pages allocated) to the KV landing, link queueing
// and injected delay included.
type TransferReport struct {
	Transfers int64       `json:"transfers"`
	Bytes     int64       `json:"bytes"`
	BytesP50  int64       `json:"bytes_p50"`
	BytesP99  int64       `json:"bytes_p99"`
	TimeMS    Percentiles `json:"time_ms"`
}

// Outcomes count how the requests of a disaggregated run ended, each in
// exactly one: completed; failed with DISAGG_TRANS_ERROR on the generation
// server, its receive timed out (kv_transfer_timeout_ms) or failed;
// failed on the context server (refused, or its send failed: the paired
// generation leg is cancelled); refused by the generation servers (too
// large for one); or lost, which must be 0.
type Outcomes struct {
	Completed          int64 `json:"completed"`
	KVTransferTimeouts int64 `json:"kv_transfer_timeouts"`
	KVTransferErrors   int64 `json:"kv_transfer_errors"`
	ContextFailures    int64 `json:"context_failures"`
	GenerationFailures int64 `json:"generation_failures"`
	Lost               int64 `json:"lost"`
}

// disaggOutcome counts a disaggregated run's requests as they end.
type disaggOutcome struct {
	arrived, completed                  int64
	timeouts, transferErrors            int64
	contextFailures, generationFailures int64
	ttft                                []float64 // end to end
}

func (o *disaggOutcome) failed() int64 {
	return o.timeouts + o.transferErrors + o.contextFailures + o.generationFailures
}

// inFlight counts the requests arrived and not ended.
func (o *disaggOutcome) inFlight() int64 { return o.arrived - o.completed - o.failed() }

// transferSamples are the landed transfers' bytes and times.
type transferSamples struct {
	bytes []int64
	ms    []float64
}

func (t *transferSamples) add(bytes int64, ms float64) {
	t.bytes = append(t.bytes, bytes)
	t.ms = append(t.ms, ms)
}

func (t *transferSamples) report() TransferReport {
	rep := TransferReport{Transfers: int64(len(t.bytes)), TimeMS: percentilesOf(t.ms)}
	for _, b := range t.bytes {
		rep.Bytes += b
	}
	if n := len(t.bytes); n > 0 {
		slices.Sort(t.bytes)
		rep.BytesP50, rep.BytesP99 = t.bytes[(n-1)/2], t.bytes[int(0.99*float64(n-1))]
	}
	return rep
}

// report is the run's Report: the pool, prompt and connector figures are
// the context servers' (they prefill, look up and save); requests, TTFT
// (end to end), ITL and throughput are the whole run's; Disagg has each
// role, the transfers and the outcomes.
func (d *disagg) report(ctx context.Context, wall time.Duration) Report {
	rep := d.ctx.c.report(ctx, wall)
	gen := d.gen.c.report(ctx, wall)
	ce, ge := d.ctx.c.owners[0], d.gen.c.owners[0]
	ctxRole := roleReport(d.ctx.c, rep)
	genRole := roleReport(d.gen.c, gen)
	o := &d.out
	rep.Requests, rep.Completed, rep.Failed = o.arrived, o.completed, o.failed()
	rep.TTFTMS, rep.ITLMS = percentilesOf(o.ttft), gen.ITLMS
	genRole.TTFTMS = rep.TTFTMS
	rep.Restarts += gen.Restarts
	rep.Preemptions += gen.Preemptions
	rep.VerifyMismatches += gen.VerifyMismatches
	rep.Iterations += gen.Iterations
	rep.ReservationWaits += gen.ReservationWaits
	rep.AttentionDP, rep.ADPRouting, rep.OwnerRequests, rep.OwnerPrefillTokens, rep.PrefillPerPass = 0, "", nil, nil, nil
	rep.FailedRequests = append(slices.Clone(ce.failed), d.failed...)
	rep.FailedRequests = rep.FailedRequests[:min(len(rep.FailedRequests), MaxFailedReported)]
	c := counters{outputTokens: ce.counts.outputTokens + ge.counts.outputTokens, completed: o.completed,
		firstArrivalMS: ce.counts.firstArrivalMS, lastTokenMS: max(ce.counts.lastTokenMS, ge.counts.lastTokenMS)}
	c.throughput(&rep)
	rep.Disagg = &DisaggReport{
		ContextServers: len(d.ctx.c.owners), GenerationServers: len(d.gen.c.owners),
		KVTransferGBps: d.cfg.TransferGBps, KVTransferTimeoutMS: float64(d.cfg.TransferTimeout) / 1e6,
		Context: ctxRole, Generation: genRole, KVTransfer: d.xfer.report(),
		Outcomes: Outcomes{Completed: o.completed, KVTransferTimeouts: o.timeouts, KVTransferErrors: o.transferErrors,
			ContextFailures: o.contextFailures, GenerationFailures: o.generationFailures, Lost: o.inFlight()},
	}
	return rep
}

// roleReport is one role's part of the report, from its cluster's report.
func roleReport(c *cluster, rep Report) RoleReport {
	return RoleReport{ServerRequests: slices.Clone(c.placed), Completed: c.owners[0].counts.completed,
		Iterations: rep.Iterations, Preemptions: rep.Preemptions, TTFTMS: rep.TTFTMS, ITLMS: rep.ITLMS}
}

// progress is the run's progress so far.
func (d *disagg) progress() Progress {
	ce := d.ctx.c.owners[0]
	p := ce.progress()
	p.Requests, p.Completed, p.Failed = d.out.arrived, d.out.completed, d.out.failed()
	p.Iterations += d.gen.c.owners[0].counts.iterations
	return p
}
