package cmd

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/pool"
)

// leasingStore is a store whose Exist is its leasing exist
// (pool.LeasingExister): pool exist --leasing probes through it, as the
// connector's lookup does.
type leasingStore struct {
	pool.Store
	le pool.LeasingExister
}

// Exist is the store's ExistLeasing.
func (l leasingStore) Exist(ctx context.Context, keys []string, status []int) error {
	return l.le.ExistLeasing(ctx, keys, status)
}

// probingStore is st, or with leasing st made to probe with leases; a
// pool that cannot is an error naming it (holes.ErrNoLeasing, as holes
// --leasing).
func probingStore(st pool.Store, leasing bool, poolName string) (pool.Store, error) {
	if !leasing {
		return st, nil
	}
	le, ok := st.(pool.LeasingExister)
	if !ok {
		return nil, fmt.Errorf("--leasing: %w: %s", holes.ErrNoLeasing, poolName)
	}
	return leasingStore{Store: st, le: le}, nil
}
