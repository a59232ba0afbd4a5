package engine

import (
	"fmt"
	"testing"

	"github.com/kvctl/kvctl/pool/pooltest"
)

// TestPagesRegisteredWithThePool checks that an engine hands a pool that
// takes buffer registrations only memory it registered (its pages, or
// the host mover's staging), and unregisters it at the end of the run.
func TestPagesRegisteredWithThePool(t *testing.T) {
	for _, staged := range []bool{false, true} {
		t.Run(fmt.Sprintf("stage_through_host=%v", staged), func(t *testing.T) {
			cfg, p := testConfig(t)
			rp := pooltest.NewRegistering(p)
			cfg.Pool, cfg.Connector.StageThroughHost = rp, staged
			runOK(t, cfg, testWorkload)
			cfg.Clock = NewClock()
			if rep := runOK(t, cfg, testWorkload); rep.PoolHitTokens == 0 {
				t.Fatalf("second run: 0 pool hit tokens, want loads from the pool")
			}
			in, out := rp.Counts()
			if _, left := rp.Registrations(); in == 0 || out != 0 || left != 0 {
				t.Errorf("pool calls saw %d buffers inside registered memory, %d outside, %d left registered; want some, 0, 0", in, out, left)
			}
		})
	}
}
