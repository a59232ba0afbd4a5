package cmd

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// TestProbingStore: pool exist probes without a lease, with --leasing
// leases what it finds, and --leasing on a pool that cannot lease is
// refused, naming the pool.
func TestProbingStore(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		leasing   bool
		hide      bool // hide the pool's leasing exist
		wantLease bool
		wantErr   error
	}{
		{"read-only", false, false, false, nil},
		{"leasing", true, false, true, nil},
		{"leasing refused", true, true, false, holes.ErrNoLeasing},
		{"read-only on a pool that cannot lease", false, true, false, nil},
	}
	for _, tt := range tests {
		p, err := mem.New(mem.Options{Capacity: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		res := make([]pool.Code, 1)
		if err := p.Put(ctx, []pool.PutItem{{Key: "k", Value: []byte("v")}}, res); err != nil || res[0] != pool.OK {
			t.Fatalf("Put(k) = %v, %v", res[0], err)
		}
		var st pool.Store = p
		if tt.hide {
			st = struct{ pool.Store }{p}
		}
		probe, err := probingStore(st, tt.leasing, "mem://")
		if !errors.Is(err, tt.wantErr) {
			t.Fatalf("probingStore(%s) = %v, want %v", tt.name, err, tt.wantErr)
		}
		if err != nil {
			p.Close()
			continue
		}
		status := make([]int, 1)
		if err := probe.Exist(ctx, []string{"k"}, status); err != nil || status[0] != 1 {
			t.Errorf("probingStore(%s).Exist(k) = %d, %v, want 1", tt.name, status[0], err)
		}
		until := make([]time.Time, 1)
		if err := p.Leases(ctx, []string{"k"}, until); err != nil {
			t.Fatal(err)
		}
		if leased := !until[0].IsZero(); leased != tt.wantLease {
			t.Errorf("probingStore(%s).Exist(k) leased k = %v, want %v", tt.name, leased, tt.wantLease)
		}
		p.Close()
	}
}
