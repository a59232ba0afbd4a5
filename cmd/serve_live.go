package cmd

import (
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/engine"
	"github.com/spf13/pflag"
)

func (l *liveOptions) register(fs *pflag.FlagSet) {
	l.AsyncLoadWorkers, l.LocalReuseBackoff, l.ReuseMatchAlignment = 1, "off", 1
	fs.Float64Var(&l.FaultMissingRate, "fault-missing-rate", l.FaultMissingRate, "probability that a page vanishes between lookup and load (the request restarts)")
	fs.Float64Var(&l.FaultPutErrorRate, "fault-put-error-rate", l.FaultPutErrorRate, "probability that a page's put fails (a future miss)")
	fs.DurationVar(&l.FaultPoolLatency, "fault-pool-latency", l.FaultPoolLatency, "real delay added to every pool call")
	fs.Uint64Var(&l.FaultSeed, "fault-seed", l.FaultSeed, "seed of the fault draws (a run is deterministic given it)")
	fs.BoolVar(&l.AsyncLoad, "async-load", l.AsyncLoad, "async_load: load offers in the background while the request is parked")
	fs.IntVar(&l.AsyncLoadWorkers, "async-load-workers", l.AsyncLoadWorkers, "async_load_workers sharing one FIFO queue")
	fs.IntVar(&l.AttentionDP, "attention-dp", l.AttentionDP, "run N attention-DP owners sharing the pool and the w1r0 key space")
	fs.StringVar(&l.AdmissionQuery, "admission-query", "", "admission query: max_uncharged_parks=N,max_offer_deferrals=M")
	fs.BoolVar(&l.CompletionReservation, "completion-reservation", l.CompletionReservation, "admit a request only while every admitted request's bound fits (wait instead of preempting)")
	fs.StringVar(&l.Draft, "draft", l.Draft, "speculative prefill with a one-model draft: mtp, mtp-eagle or eagle3 (context-only requests)")
	fs.IntVar(&l.MaxDraftLen, "max-draft-len", l.MaxDraftLen, "max_draft_len of --draft")
	fs.StringVar(&l.LocalReuseBackoff, "local-reuse-backoff", l.LocalReuseBackoff, "local_reuse_backoff with a draft: off or align")
	fs.IntVar(&l.ReuseMatchAlignment, "reuse-match-alignment", l.ReuseMatchAlignment, "reuse_match_alignment: a positive divisor of T")
}

// apply checks the flags, which are already bound to cfg's fields (cfg
// starts as l.Config), and parses --admission-query into it.
func (l *liveOptions) apply(cfg *engine.Config) error {
	for name, p := range map[string]float64{"--fault-missing-rate": l.FaultMissingRate, "--fault-put-error-rate": l.FaultPutErrorRate} {
		if p < 0 || p > 1 {
			return usagef("%s %v: want a probability in [0, 1]", name, p)
		}
	}
	if l.AsyncLoadWorkers < 1 || l.AttentionDP < 0 || l.FaultPoolLatency < 0 {
		return usagef("--async-load-workers must be at least 1, --attention-dp and --fault-pool-latency not negative")
	}
	if l.LocalReuseBackoff != "off" && l.LocalReuseBackoff != "align" {
		return usagef("--local-reuse-backoff %q: want off or align", l.LocalReuseBackoff)
	}
	if l.AttentionDP > 1 && cfg.Layout.World > 1 {
		return usagef("--attention-dp and --tp cannot go together")
	}
	if l.AdmissionQuery == "" {
		return nil
	}
	cfg.AdmissionQuery = true
	var err error
	cfg.MaxUnchargedParks, cfg.MaxOfferDeferrals, err = parseAdmissionQuery(l.AdmissionQuery)
	return err
}

// parseAdmissionQuery parses "max_uncharged_parks=N,max_offer_deferrals=M"
// (either may be left out: 0).
func parseAdmissionQuery(spec string) (parks, deferrals int, err error) {
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, perr := strconv.Atoi(v)
		if !ok || perr != nil || n < 0 {
			return 0, 0, usagef("--admission-query %q: %q: want NAME=N with N >= 0", spec, part)
		}
		switch k {
		case "max_uncharged_parks":
			parks = n
		case "max_offer_deferrals":
			deferrals = n
		default:
			return 0, 0, usagef("--admission-query %q: unknown setting %q (want max_uncharged_parks, max_offer_deferrals)", spec, k)
		}
	}
	return parks, deferrals, nil
}
