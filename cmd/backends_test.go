package cmd

import (
	"context"
	"testing"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/pool"
)

// A mem:// --pool of serve runs on the engine's clock with the engine
// driving its eviction: a lease granted at virtual time 0 still holds
// after any wall time, and expires once the virtual clock passes it.
func TestServePoolFollowsTheEngineClock(t *testing.T) {
	ctx := context.Background()
	clock := engine.NewClock()
	st, err := openServePool(ctx, "mem://?capacity=1MiB&lease_ttl=1s&eviction=background", clock)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev, ok := st.(pool.Evicter)
	if !ok || !ev.ManualEviction() {
		t.Fatalf("openServePool(mem://...) = %T, want a pool.Evicter whose eviction the engine runs", st)
	}
	res := make([]pool.Code, 1)
	if err := st.Put(ctx, []pool.PutItem{{Key: "k", Value: []byte("v")}}, res); err != nil || res[0] != pool.OK {
		t.Fatalf("Put = %v, %v", res, err)
	}
	status := make([]int, 1)
	if err := st.(pool.LeasingExister).ExistLeasing(ctx, []string{"k"}, status); err != nil || status[0] != 1 {
		t.Fatalf("ExistLeasing = %v, %v, want present", status, err)
	}
	rm := make([]pool.Code, 1)
	if err := st.Remove(ctx, []string{"k"}, false, rm); err != nil || rm[0] != pool.ObjectHasLease {
		t.Fatalf("Remove of a key leased at virtual time 0 = %v, %v, want %v", rm, err, pool.ObjectHasLease)
	}
	clock.Advance(2 * time.Second)
	if err := st.Remove(ctx, []string{"k"}, false, rm); err != nil || rm[0] != pool.OK {
		t.Fatalf("Remove after the virtual clock passed the lease = %v, %v, want OK", rm, err)
	}
}

func TestServePoolOtherSchemes(t *testing.T) {
	if _, err := openServePool(context.Background(), "nosuch://x", engine.NewClock()); err == nil {
		t.Error("openServePool(nosuch://x) = nil error, want the pool URL refused")
	}
}
