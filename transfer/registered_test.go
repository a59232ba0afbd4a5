package transfer

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/pooltest"
)

// newRegisteringStore is a mapStore that takes buffer registrations.
func newRegisteringStore() *pooltest.Registering { return pooltest.NewRegistering(newMapStore()) }

// TestStagingRegisteredWithThePool checks that a staged loader and saver
// register their staging with a pool that takes it, hand the pool only
// buffers inside it, and unregister it when they close.
func TestStagingRegisteredWithThePool(t *testing.T) {
	maps := newMapStore()
	store := pooltest.NewRegistering(maps)
	f := newFixture(t, 16, maps)
	rs := append(refs("g0", 0, 0, 7), refs("g1", 1, 3, 6)...)
	f.fillGPU(t, rs)
	o := f.options()
	o.Pool, o.Batch = store, 4
	s, err := NewSaver(o)
	if err != nil {
		t.Fatalf("NewSaver error = %v", err)
	}
	if _, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil); err != nil {
		t.Fatalf("Save error = %v", err)
	}
	s.Close()
	f.zeroGPU(t)
	l, err := NewLoader(o)
	if err != nil {
		t.Fatalf("NewLoader error = %v", err)
	}
	results, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: rs}})
	if err != nil || !results[0].OK() {
		t.Fatalf("Load = %+v, %v, want every page landed", results, err)
	}
	l.Close()
	f.checkLanded(t, rs)
	in, out := store.Counts()
	if total, left := store.Registrations(); total != 2 || in != 2*len(rs) || out != 0 || left != 0 {
		t.Errorf("registrations %d, values in registered staging %d, outside %d, left registered %d; want 2, %d, 0, 0",
			total, in, out, left, 2*len(rs))
	}
}

// reportingStore is a registeringStore whose client reports its
// transport.
type reportingStore struct{ *pooltest.Registering }

func (reportingStore) Transport() pool.Transport {
	return pool.Transport{Protocol: "tcp", LocalHostname: "h:1", DeviceMemory: pool.NotKnown}
}

// TestBenchResultSaysWhatThePoolReports checks the bench result's
// pool_transport and staging_registered against the pool's abilities.
func TestBenchResultSaysWhatThePoolReports(t *testing.T) {
	tr := pool.Transport{Protocol: "tcp", LocalHostname: "h:1", DeviceMemory: pool.NotKnown}
	tests := []struct {
		name           string
		store          pool.Store
		direct         bool
		wantTransport  *pool.Transport
		wantRegistered bool
	}{
		{"plain pool", newMapStore(), false, nil, false},
		{"registering pool", newRegisteringStore(), false, nil, true},
		{"reporting pool", reportingStore{newRegisteringStore()}, false, &tr, true},
		{"reporting pool, direct", reportingStore{newRegisteringStore()}, true, &tr, false},
	}
	for _, tt := range tests {
		r := newBenchResult(BenchOptions{Options: Options{Device: testDevice(t), Pool: tt.store, Direct: tt.direct}, PageBytes: 64, RegionsPerPage: 1})
		if diff := cmp.Diff(tt.wantTransport, r.PoolTransport); diff != "" || r.StagingRegistered != tt.wantRegistered {
			t.Errorf("%s: newBenchResult: staging registered %v, want %v; transport (-want +got):\n%s", tt.name, r.StagingRegistered, tt.wantRegistered, diff)
		}
	}
}
