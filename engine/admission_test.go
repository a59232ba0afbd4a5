package engine

import (
	"context"
	"testing"

	"github.com/kvctl/kvctl/workload"
)

// TestAdmissionQueryDefersOffers: a request whose pool offer the pages
// cannot cover waits up to max_offer_deferrals passes, then is trimmed.
func TestAdmissionQueryDefersOffers(t *testing.T) {
	big := workload.Request{ID: "big", Tokens: tokensOf(0, 400), OutputLength: 1, ArrivalMS: 10}
	hog := workload.Request{ID: "hog", Tokens: tokensOf(5000, 300), OutputLength: 60}
	for _, query := range []bool{false, true} {
		cfg, _ := testConfig(t)
		runOK(t, cfg, sliceSource{big}) // the pool holds big's blocks
		cfg.Clock, cfg.Scheduler.AdmissionQuery, cfg.Scheduler.MaxOfferDeferrals = NewClock(), query, 2
		rep := runOK(t, cfg, sliceSource{hog, big})
		want := int64(0)
		if query {
			want = 2
		}
		if rep.OfferDeferrals != want || rep.PoolHitTokens == 0 {
			t.Errorf("admission query %v: %d offer deferrals, %d pool hit tokens; want %d and hits", query, rep.OfferDeferrals, rep.PoolHitTokens, want)
		}
	}
}

// TestAdmissionQueryChargesParks: parks take a slot, and tokens beyond
// max_uncharged_parks.
func TestAdmissionQueryChargesParks(t *testing.T) {
	var reqs sliceSource
	for i := range 3 {
		reqs = append(reqs, workload.Request{ID: string(rune('a' + i)), Tokens: tokensOf(1000*i, 100), OutputLength: 1})
	}
	tests := []struct {
		query         bool
		wantParked    int
		wantUncharged int64
	}{
		{false, 3, 0},
		{true, 2, 1},
	}
	for _, tt := range tests {
		cfg, _ := testConfig(t)
		runOK(t, cfg, reqs)
		cfg.Clock, cfg.Connector.AsyncLoad, cfg.Scheduler.MaxBatchSize = NewClock(), true, 2
		cfg.Scheduler.AdmissionQuery, cfg.Scheduler.MaxUnchargedParks = tt.query, 1
		e := arrivedEngine(t, cfg, reqs...)
		if err := e.iteration(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(e.async.parked) != tt.wantParked || e.counts.unchargedParks != tt.wantUncharged {
			t.Errorf("admission query %v: %d parked, %d uncharged after a pass; want %d, %d",
				tt.query, len(e.async.parked), e.counts.unchargedParks, tt.wantParked, tt.wantUncharged)
		}
		cfg.Clock = NewClock()
		if rep := runOK(t, cfg, reqs); rep.ParkedLoads != 3 {
			t.Errorf("admission query %v: %d parked loads in a replay, want 3", tt.query, rep.ParkedLoads)
		}
	}
}
