package redis

import (
	"testing"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/pooltest"
)

// TestConformance runs the pool conformance suite against every target.
// pooltest closes the stores it gets; closing twice is harmless.
func TestConformance(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			pooltest.Run(t, func(t *testing.T) pool.Store { return tg.open(t) })
		})
	}
}
