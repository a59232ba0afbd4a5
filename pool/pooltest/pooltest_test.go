package pooltest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/pool/pooltest"
)

func TestRunOnMem(t *testing.T) {
	pooltest.Run(t, func(t *testing.T) pool.Store {
		s, err := mem.New(mem.Options{Capacity: 32 << 20, Segments: 2, Eviction: mem.EvictManual})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// readOnly serves a seeded mem pool read-only, as a read-only backend must.
type readOnly struct{ *mem.Store }

func (r readOnly) Put(context.Context, []pool.PutItem, []pool.Code) error {
	return fmt.Errorf("put to test pool: %w", pool.ErrReadOnly)
}

func (r readOnly) Remove(context.Context, []string, bool, []pool.Code) error {
	return fmt.Errorf("remove from test pool: %w", pool.ErrReadOnly)
}

func (r readOnly) Stat(ctx context.Context) (pool.Stat, error) {
	st, err := r.Store.Stat(ctx)
	st.ReadOnly = true
	return st, err
}

func (r readOnly) ReadOnly() bool { return true }

func openReadOnly(t *testing.T, keys map[string][]byte) *mem.Store {
	s, err := mem.New(mem.Options{Capacity: 1 << 20, Segments: 1, Eviction: mem.EvictManual})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range keys {
		if err := s.Put(context.Background(), []pool.PutItem{{Key: k, Value: v}}, make([]pool.Code, 1)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestRunReadOnlyOnMem(t *testing.T) {
	pooltest.RunReadOnly(t, func(t *testing.T, keys map[string][]byte) pool.Store {
		return readOnly{openReadOnly(t, keys)}
	})
}

// noValues is a read-only backend that cannot read values.
type noValues struct{ readOnly }

func (noValues) Get(context.Context, []string, [][]byte, []int64) error {
	return fmt.Errorf("get from test pool: %w", errors.ErrUnsupported)
}

func TestRunReadOnlyWithoutValues(t *testing.T) {
	pooltest.RunReadOnly(t, func(t *testing.T, keys map[string][]byte) pool.Store {
		return noValues{readOnly{openReadOnly(t, keys)}}
	})
}
