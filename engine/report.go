package engine

import (
	"context"
	"time"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// Report is the outcome of a replay (the JSON of `kvctl serve --replay`).
// Hit tokens count each prompt token once, by what first served it: the
// local radix tree (local_hit_tokens), a load from the pool
// (pool_hit_tokens) or the model; computed_prompt_tokens counts every
// prompt token a forward pass computed, recomputations after a preemption
// or restart included. Times are modelled milliseconds (virtual time);
// wall_seconds is real time.
type Report struct {
	Outcome
	Iterations  int64       `json:"iterations"`
	TTFTMS      Percentiles `json:"ttft_ms"`
	ITLMS       Percentiles `json:"itl_ms"`
	WallSeconds float64     `json:"wall_seconds"`
	Pool        pool.Stat   `json:"pool"`
	PrefixHoles stats.Holes `json:"prefix_holes"`
	// Load and Save are the connector's transfers between the pool and
	// the GPU pages: pages, store calls, bytes and per-phase times.
	Load stats.Load `json:"load"`
	Save stats.Load `json:"save"`
	// Preemptions are readmissions after running out of pages.
	Preemptions int64 `json:"preemptions"`
	// World is the tensor-parallel size (every rank in this process).
	World int `json:"world"`
	// FaultMissingPages and FaultPutErrors are the injected faults
	// (Config.Faults).
	FaultMissingPages int64 `json:"fault_missing_pages"`
	FaultPutErrors    int64 `json:"fault_put_errors"`
	// ParkedLoads are async loads (requests parked outside the batch);
	// AsyncLoadFailures those that found a page missing and restarted
	// (counted in Restarts too); AsyncQueuedLoadFailures those of them
	// that waited in the load queue first (their worker was busy), so that
	// a page leased at lookup could expire and be evicted meanwhile;
	// AsyncLoadWaitMS the total virtual time requests spent parked.
	ParkedLoads             int64   `json:"parked_loads"`
	AsyncLoadFailures       int64   `json:"async_load_failures"`
	AsyncQueuedLoadFailures int64   `json:"async_queued_load_failures"`
	AsyncLoadWaitMS         float64 `json:"async_load_wait_ms"`
	// AttentionDP is the number of attention-DP owners (0 without),
	// ADPRouting the router's policy (Config.Routing), OwnerRequests the
	// requests it placed on each owner, OwnerPrefillTokens the prefill
	// tokens each computed (recomputation included) and PrefillPerPass how
	// evenly they shared it pass by pass.
	AttentionDP        int             `json:"attention_dp,omitempty"`
	ADPRouting         Routing         `json:"adp_routing,omitempty"`
	OwnerRequests      []int64         `json:"owner_requests,omitempty"`
	OwnerPrefillTokens []int64         `json:"owner_prefill_tokens,omitempty"`
	PrefillPerPass     *PrefillBalance `json:"prefill_per_pass,omitempty"`
	// Concurrency is the closed loop's number of clients
	// (Config.Concurrency), 0 for an open-loop replay.
	Concurrency int `json:"concurrency"`
	// OutputTokens are the tokens generated. DurationMS is the modelled
	// time from the first arrival to the last token; OutputTokensPerS and
	// RequestsPerS are the output tokens and completed requests per
	// modelled second of it (0 when it is 0).
	OutputTokens     int64   `json:"output_tokens"`
	DurationMS       float64 `json:"duration_ms"`
	OutputTokensPerS float64 `json:"output_tokens_per_s"`
	RequestsPerS     float64 `json:"requests_per_s"`
	// Model and Costs are the modelled model and the costs that timed
	// each pass (Config.Model, Config.Costs).
	Model string `json:"model"`
	Costs Costs  `json:"costs"`
	// RefusedNotContextOnly are requests refused by speculative prefill
	// (Config.Draft) for generating more than one token (in Failed too).
	RefusedNotContextOnly int64 `json:"refused_not_context_only"`
	// ReservationWaits are passes whose admission stopped because the head
	// request's completion bound did not fit (SchedulerConfig.CompletionReservation).
	ReservationWaits int64 `json:"reservation_waits"`
	// OfferDeferrals are admissions deferred for an offer the pages could
	// not cover, UnchargedParks parks admitted without a token charge
	// (SchedulerConfig.AdmissionQuery).
	OfferDeferrals int64 `json:"offer_deferrals"`
	UnchargedParks int64 `json:"uncharged_parks"`
	// PoolCallFailures are pool calls that failed as a whole (an
	// unreachable pool) and that the run went on from, as upstream's
	// connector does: a lookup misses, a load batch's pages are missing
	// (the request restarts), a save batch is dropped. With any,
	// FirstPoolFailureAtMS is the virtual time of the first and
	// FirstPoolFailureRequest the number of requests arrived by then.
	PoolCallFailures        int64    `json:"pool_call_failures"`
	FirstPoolFailureAtMS    *float64 `json:"first_pool_failure_at_ms,omitempty"`
	FirstPoolFailureRequest *int64   `json:"first_pool_failure_request,omitempty"`
	// Disagg is a disaggregated run's roles, KV transfers and outcomes
	// (Config.Disagg); nil otherwise.
	Disagg *DisaggReport `json:"disagg,omitempty"`
	// FailedRequests describe the first MaxFailedReported failed requests.
	FailedRequests []FailedRequest `json:"failed_requests,omitempty"`
	// Interrupted says ctx ended the replay: the report covers the
	// requests that arrived before it did.
	Interrupted bool `json:"interrupted,omitempty"`
	// PoolKeysRemoved is how many of the pages the run stored it removed
	// from the pool when it ended (Config.RemovePages); Pool is the pool
	// as the run left it, before that.
	PoolKeysRemoved int64 `json:"pool_keys_removed,omitempty"`
	Series
}

// MaxFailedReported is how many failed requests a Report describes.
const MaxFailedReported = 20

// FailedRequest names a request that could not be served and why.
type FailedRequest struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// Percentiles of a latency distribution, in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// Progress is reported while a replay runs.
type Progress struct {
	Requests, Completed, Failed int64
	Iterations                  int64
	// Restarts are readmissions after a failed load; Preemptions after
	// running out of pages.
	Restarts, Preemptions int64
	// VirtualMS is the virtual clock, in milliseconds.
	VirtualMS float64
	// HitRate is (local + pool hit tokens) / prompt tokens of the
	// requests completed so far.
	HitRate float64
}

// latencies are the samples behind the report's percentiles.
type latencies struct {
	ttft []float64
	itl  []float32
}

// hitRate is (local + pool) / prompt tokens, 0 with no prompt tokens.
func hitRate(local, poolHits, prompt int64) float64 {
	if prompt == 0 {
		return 0
	}
	return float64(local+poolHits) / float64(prompt)
}

func (e *engine) progress() Progress {
	c := e.counts
	return Progress{Requests: c.requests, Completed: c.completed, Failed: c.failed, Iterations: c.iterations,
		Restarts: c.restarts, Preemptions: c.preemptions, VirtualMS: e.clock.ElapsedMS(), HitRate: hitRate(c.localHitTokens, c.poolHitTokens, c.completedPromptTokens)}
}

// Outcome is the head of a Report: the replay's requests, prompt tokens
// and pages, and whether what it loaded verified. It is a type of its
// own so that readers of serve's JSON (package report) declare it once.
type Outcome struct {
	Requests             int64   `json:"requests"`
	Completed            int64   `json:"completed"`
	Failed               int64   `json:"failed"`
	PromptTokens         int64   `json:"prompt_tokens"`
	ComputedPromptTokens int64   `json:"computed_prompt_tokens"`
	LocalHitTokens       int64   `json:"local_hit_tokens"`
	PoolHitTokens        int64   `json:"pool_hit_tokens"`
	HitRate              float64 `json:"hit_rate"`
	LoadedPages          int64   `json:"loaded_pages"`
	SavedPages           int64   `json:"saved_pages"`
	Restarts             int64   `json:"restarts"`
	VerifyMismatches     int64   `json:"verify_mismatches"`
}

// report assembles the Report at the end of a replay.
func (e *engine) report(ctx context.Context, wall time.Duration) Report {
	c := e.counts
	load, save := e.stats.Load.Total(), e.stats.Save.Total()
	rep := Report{
		Outcome: Outcome{
			Requests: c.requests, Completed: c.completed, Failed: c.failed,
			PromptTokens: c.promptTokens, ComputedPromptTokens: c.computedPromptTokens,
			LocalHitTokens: c.localHitTokens, PoolHitTokens: c.poolHitTokens,
			HitRate:     hitRate(c.localHitTokens, c.poolHitTokens, c.promptTokens),
			LoadedPages: load.Pages, SavedPages: save.Pages,
			Restarts: c.restarts, VerifyMismatches: c.mismatches,
		},
		Iterations: c.iterations,
		TTFTMS:     percentilesOf(e.lat.ttft), ITLMS: percentilesOf(e.lat.itl),
		WallSeconds: wall.Seconds(), PrefixHoles: e.stats.Holes.Total(), Load: load, Save: save,
		FailedRequests: e.failed, Preemptions: c.preemptions, World: len(e.workers),
		OfferDeferrals: c.offerDeferrals, UnchargedParks: c.unchargedParks,
		RefusedNotContextOnly: c.notContextOnly, ReservationWaits: c.reservationWaits, ParkedLoads: c.parkedLoads, AsyncLoadFailures: c.asyncLoadFailures, AsyncLoadWaitMS: c.asyncWaitMS,
		AsyncQueuedLoadFailures: c.asyncQueuedLoadFailures,
	}
	c.poolFailures.report(&rep)
	rep.Series = e.series(ctx)
	rep.Concurrency = e.cfg.Concurrency
	rep.Model, rep.Costs = e.cfg.Model, e.cfg.Costs
	c.throughput(&rep)
	if e.faults != nil {
		fc := e.faults.Counts()
		rep.FaultMissingPages, rep.FaultPutErrors = fc.MissingPages, fc.PutErrors
	}
	if st, err := e.cfg.Pool.Stat(context.WithoutCancel(ctx)); err == nil {
		rep.Pool = st
	}
	return rep
}

// throughput sets the report's output tokens, duration and rates.
func (c counters) throughput(rep *Report) {
	rep.OutputTokens = c.outputTokens
	if c.outputTokens > 0 {
		rep.DurationMS = c.lastTokenMS - c.firstArrivalMS
	}
	if rep.DurationMS > 0 {
		rep.OutputTokensPerS = float64(c.outputTokens) / rep.DurationMS * 1e3
		rep.RequestsPerS = float64(c.completed) / rep.DurationMS * 1e3
	}
}
