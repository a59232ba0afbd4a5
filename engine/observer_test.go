package engine

import (
	"testing"

	"github.com/kvctl/kvctl/keys"
)

// recordingObserver counts what an Observer is shown.
type recordingObserver struct {
	lookups, hitBlocks, firstTokens int
	lastMS                          float64
	backwards                       bool
}

func (o *recordingObserver) Lookup(atMS float64, hashes []keys.Hash, present []bool) {
	o.lookups++
	o.backwards = o.backwards || atMS < o.lastMS
	o.lastMS = atMS
	for i := range hashes {
		if present[i] {
			o.hitBlocks++
		}
	}
}

func (o *recordingObserver) FirstToken(_, ttftMS float64) {
	if ttftMS > 0 {
		o.firstTokens++
	}
}

func TestObserverSeesLookupsAndFirstTokens(t *testing.T) {
	cfg, _ := testConfig(t)
	obs := &recordingObserver{}
	cfg.Observer = obs
	rep := runOK(t, cfg, testWorkload)
	if obs.lookups != int(rep.PrefixHoles.Lookups) {
		t.Errorf("Observer saw %d lookups, want the report's %d", obs.lookups, rep.PrefixHoles.Lookups)
	}
	if obs.hitBlocks < int(rep.PrefixHoles.HitBlocks) || obs.hitBlocks == 0 {
		t.Errorf("Observer saw %d present blocks, want at least the report's %d hit blocks (and some)", obs.hitBlocks, rep.PrefixHoles.HitBlocks)
	}
	if obs.firstTokens != int(rep.Completed) {
		t.Errorf("Observer saw %d first tokens with a positive TTFT, want one per completed request (%d)", obs.firstTokens, rep.Completed)
	}
	if obs.backwards {
		t.Error("Observer saw a lookup earlier than the one before it, want modelled times in order")
	}
}
