package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// writtenPages is a page mover that records the keys of the pages its
// saves stored (pool.OK), so that the run can remove them when it ends
// (Config.RemovePages). A key put again after an eviction is recorded
// twice; its second removal finds it gone.
type writtenPages struct {
	connector.PageMover
	mu   sync.Mutex
	keys []string
}

// Save saves items and records the keys stored.
func (w *writtenPages) Save(ctx context.Context, t *stats.PhaseTimer, items []pool.PutItem, results []pool.Code) error {
	err := w.PageMover.Save(ctx, t, items, results)
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, c := range results {
		if c == pool.OK {
			w.keys = append(w.keys, strings.Clone(items[i].Key)) // valid during the call only
		}
	}
	return err
}

// removeBatch is how many keys one Remove call of the clean-up carries.
const removeBatch = 1024

// removeTimeout bounds the clean-up, which also runs after ctx ended.
const removeTimeout = 60 * time.Second

// removeWritten removes, with force, every page the owners' saves stored,
// on a context that outlives ctx's cancellation for at most
// removeTimeout, and returns how many it removed. Pages already gone
// (evicted, removed by another) are not counted and are no error.
func (c *cluster) removeWritten(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	var removed int64
	var errs []error
	for _, e := range c.owners {
		if e.written == nil {
			continue
		}
		n, err := removeKeys(ctx, e.cfg.Pool, e.written.keys)
		removed += n
		errs = append(errs, err)
	}
	return removed, errors.Join(errs...)
}

// removeKeys removes keys with force, removeBatch at a time. A key the
// pool refuses to remove is the error once the others were tried.
func removeKeys(ctx context.Context, st pool.Store, keys []string) (int64, error) {
	var removed int64
	var refused error
	codes := make([]pool.Code, removeBatch)
	for start := 0; start < len(keys); start += removeBatch {
		batch := keys[start:min(start+removeBatch, len(keys))]
		if err := st.Remove(ctx, batch, true, codes[:len(batch)]); err != nil {
			return removed, fmt.Errorf("engine: removing the run's pages from the pool: %w", err)
		}
		for i, code := range codes[:len(batch)] {
			switch {
			case code == pool.OK:
				removed++
			case code != pool.ObjectNotFound && refused == nil:
				refused = fmt.Errorf("engine: removing the run's pages from the pool: %w", &pool.Error{Op: "remove", Key: batch[i], Code: code})
			}
		}
	}
	return removed, refused
}
