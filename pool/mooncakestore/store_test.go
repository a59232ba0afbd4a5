package mooncakestore

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/pooltest"
)

// TestConformanceFake runs the conformance suite against the Store over a
// fake client: the Store's own logic (put-if-absent over a client that
// reports present keys as stored, staging, batching, codes) everywhere,
// without Mooncake.
func TestConformanceFake(t *testing.T) {
	f := newFakeClient(t)
	pooltest.Run(t, func(t *testing.T) pool.Store {
		s := openFake(t, f)
		return &countingStore{Store: s, f: f}
	})
	if len(f.registered) != 0 {
		t.Errorf("after every store closed, %d buffers stay registered, want 0", len(f.registered))
	}
}

// countingStore gives the fake's key count to Stat, which the suite
// checks; a real store counts through its admin API.
type countingStore struct {
	*Store
	f *fakeClient
}

func (c *countingStore) Stat(ctx context.Context) (pool.Stat, error) {
	st, err := c.Store.Stat(ctx)
	c.f.mu.Lock()
	st.Keys = int64(len(c.f.values))
	c.f.mu.Unlock()
	return st, err
}

func TestPutRefusesWhatTheCCannotCarry(t *testing.T) {
	s := openFake(t, newFakeClient(t))
	defer s.Close()
	items := []pool.PutItem{
		{Key: "ok", Value: []byte("v")},
		{Key: "", Value: []byte("v")},
		{Key: "nul\x00key", Value: []byte("v")},
		{Key: "empty"},
		{Key: "metadata-only", Size: 10},
	}
	got := make([]pool.Code, len(items))
	if err := s.Put(context.Background(), items, got); err != nil {
		t.Fatalf("Put = %v, want nil", err)
	}
	want := []pool.Code{pool.OK, pool.InvalidParams, pool.InvalidParams, pool.InvalidParams, pool.InvalidParams}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Put results (-want +got):\n%s", diff)
	}
}

func TestStatWithoutAdminWarns(t *testing.T) {
	s := openFake(t, newFakeClient(t))
	defer s.Close()
	st, err := s.Stat(context.Background())
	if err != nil {
		t.Fatalf("Stat() = %v, want nil", err)
	}
	if st.Backend != "mooncake-store" || st.Address != "fake:50051" || len(st.Warnings) != 1 {
		t.Errorf("Stat() = backend %q address %q warnings %q, want mooncake-store, fake:50051 and one warning", st.Backend, st.Address, st.Warnings)
	}
}

func TestRemoveAll(t *testing.T) {
	f := newFakeClient(t)
	s := openFake(t, f)
	defer s.Close()
	res := make([]pool.Code, 2)
	if err := s.Put(context.Background(), []pool.PutItem{{Key: "a", Value: []byte("1")}, {Key: "b", Value: []byte("2")}}, res); err != nil {
		t.Fatalf("Put = %v, want nil", err)
	}
	n, err := s.RemoveAll(context.Background(), true)
	if n != 2 || err != nil {
		t.Errorf("RemoveAll(force) = %d, %v, want 2, nil", n, err)
	}
}

func TestCloseDestroysTheClient(t *testing.T) {
	f := newFakeClient(t)
	s := openFake(t, f)
	for range 2 {
		if err := s.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
	}
	if !f.destroyed || len(f.registered) != 0 {
		t.Errorf("after Close: destroyed %t, %d buffers registered, want true and 0", f.destroyed, len(f.registered))
	}
}

func TestCallErrorCarriesTheCode(t *testing.T) {
	err := callError("put", 3, -1)
	var pe *pool.Error
	if !errors.As(err, &pe) || pe.Code != pool.Code(-1) {
		t.Errorf("callError(put, 3, -1) = %v, want a *pool.Error with code -1", err)
	}
}
