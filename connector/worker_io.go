package connector

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// StartLoadKV performs the pass's loads (start_load_kv), synchronously:
// one page per page slot of each transfer, in batches of the mover's
// MaxBatch pages. A page whose result is not its full size (missing:
// evicted since the lookup, or never completely put) fails its request:
// the request is reported by TakeFailedLoadRequests and its bound saves
// are dropped from m; its other pages are not loaded. A batch whose call
// the pool failed as a whole has every page missing (see Worker); another
// error is the mover's.
//
// On a tensor-parallel rank (Layout.World > 1) a missing page is fatal: the
// ranks hold shards of the same KV and cannot restart alone. Every page is
// then attempted and the error is a *LoadFailedError.
func (w *Worker) StartLoadKV(ctx context.Context, m *Meta) error {
	per := len(w.slots)
	total := len(m.Loads) * per
	w.passFailed = 0
	for start := 0; start < total; start += w.mover.MaxBatch() {
		end := min(total, start+w.mover.MaxBatch())
		if err := w.loadBatch(ctx, m, start, end); err != nil {
			return fmt.Errorf("loading pages: %w", err)
		}
	}
	if w.passFailed > 0 && w.opts.Keys.Layout.World > 1 {
		return &LoadFailedError{Failed: w.passFailed, Pages: total}
	}
	return nil
}

// LoadFailedError is the fatal load failure of a tensor-parallel rank.
type LoadFailedError struct {
	// Failed of Pages pages of the pass were missing.
	Failed, Pages int
}

// Error is the upstream message.
func (e *LoadFailedError) Error() string {
	return fmt.Sprintf("failed to load %d of %d pages; the affected KV slots were already reported as computed", e.Failed, e.Pages)
}

// loadBatch loads pages [start, end) of the pass, page p being slot
// p % slots of transfer p / slots.
func (w *Worker) loadBatch(ctx context.Context, m *Meta, start, end int) error {
	rec := w.opts.LoadStats
	t := rec.Start(stats.PhaseResolve)
	defer t.Stop()
	per := len(w.slots)
	w.keys, w.pages, w.owners = w.keys[:0], w.pages[:0], w.owners[:0]
	w.spell.start(end - start)
	for p := start; p < end; p++ {
		tr := m.Loads[p/per]
		if w.failedSet[tr.ReqID] && w.opts.Keys.Layout.World == 1 {
			continue // its load failed already: the rest is not needed
		}
		w.keys = append(w.keys, w.spell.page(p%per, tr.Hash))
		w.pages = append(w.pages, w.opts.Pages.Page(p%per, tr.Page))
		w.owners = append(w.owners, p/per)
	}
	if len(w.keys) == 0 {
		return nil
	}
	w.n = resize(w.n, len(w.keys))
	if err := w.mover.Load(ctx, &t, w.keys, w.pages, w.n); err != nil {
		w.spell.abandon()
		if !tolerated(ctx, err) {
			return err
		}
		w.poolFailed(CallLoad, fmt.Errorf("load of %d pages: %w", len(w.keys), err))
		for i := range w.n {
			w.n[i] = int64(pool.TransferFail) // every page of the batch is missing
		}
	}
	landed, bytes, failed := 0, int64(0), 0
	for i, n := range w.n {
		if n == int64(len(w.pages[i])) {
			landed++
			bytes += n
			continue
		}
		failed++
		w.failLoad(m, m.Loads[w.owners[i]].ReqID)
	}
	rec.AddCall(landed, bytes, failed)
	w.passFailed += failed
	clear(w.keys)
	return nil
}

func (w *Worker) failLoad(m *Meta, id string) {
	if w.failedSet[id] {
		return
	}
	w.failedSet[id] = true
	w.failed = append(w.failed, id)
	m.DropBoundSaves(id)
}

// WaitForSave performs the pass's saves after its forward (wait_for_save):
// every page of each save not dropped is put unless a leasing exist finds
// it in the pool first (see saveBatch), never overwriting. Per-page put failures are counted in
// the save statistics, not retried: a lost write is only a future miss.
// A batch whose call failed as a whole is dropped (see Worker). Every save
// performed or dropped so is reported by TakeSubmittedSaves. Saving a block
// whose pages do not hold the KV of the hash it is saved under is an error:
// uncomputed KV is never published.
func (w *Worker) WaitForSave(ctx context.Context, m *Meta) error {
	saves := w.saves[:0]
	for _, tr := range m.Saves {
		if m.Dropped(tr.ReqID) {
			continue
		}
		if h, ok := w.opts.Pages.Holds(tr.Page); !ok || h != tr.Hash {
			return fmt.Errorf("request %q: refusing to save block %d (%s): its KV was not computed", tr.ReqID, tr.Block, tr.Hash)
		}
		saves = append(saves, tr)
	}
	per := len(w.slots)
	total := len(saves) * per
	for start := 0; start < total; start += w.mover.MaxBatch() {
		end := min(total, start+w.mover.MaxBatch())
		if err := w.saveBatch(ctx, saves, start, end); err != nil {
			return fmt.Errorf("saving pages: %w", err)
		}
	}
	w.submit(saves)
	w.saves = saves
	return nil
}

// saveBatch saves pages [start, end) of saves, page p being slot
// p % slots of save p / slots. As upstream's _put (mooncake_store
// worker.py), it first asks the leasing batch exist for the batch's keys
// (batch_is_exist: pages present get their lease refreshed) and puts only
// the pages absent (or whose probe failed: the put decides for those).
// The exist and the put are each a store call in the save statistics;
// a page found present counts as saved, as one whose put found the key.
func (w *Worker) saveBatch(ctx context.Context, saves []Transfer, start, end int) error {
	rec := w.opts.SaveStats
	t := rec.Start(stats.PhaseResolve)
	defer t.Stop()
	w.keys = w.keys[:0]
	w.spell.start(end - start)
	for p := start; p < end; p++ {
		w.keys = append(w.keys, w.spell.page(p%len(w.slots), saves[p/len(w.slots)].Hash))
	}
	w.status = resize(w.status, len(w.keys))
	t.Next(stats.PhasePut) // the exist is a store call of the put, timed as one of its runs
	if err := w.exists(ctx, w.keys, w.status); err != nil {
		return w.dropSaveBatch(ctx, err, len(w.keys))
	}
	present, bytes := 0, int64(0)
	w.items = w.items[:0]
	for i, p := 0, start; p < end; i, p = i+1, p+1 {
		s, tr := p%len(w.slots), saves[p/len(w.slots)]
		if w.status[i] == 1 {
			present++
			bytes += w.slots[s].Bytes
			continue
		}
		key := w.keys[i]
		if !w.borrowPutKeys {
			key = w.spell.owned(s, tr.Hash)
		}
		w.items = append(w.items, w.putItem(key, s, tr))
	}
	rec.AddCall(present, bytes, 0)
	if len(w.items) == 0 {
		clear(w.keys)
		return nil
	}
	defer clear(w.keys)
	if err := w.put(ctx, &t); err != nil {
		if !tolerated(ctx, err) {
			return err
		}
		return w.dropSaveBatch(ctx, err, len(w.items))
	}
	return nil
}

// dropSaveBatch drops the n pages of a save batch whose exist or put
// failed with err (see Worker): they count as failed, and are not emitted
// again. An error after the context ended is returned.
func (w *Worker) dropSaveBatch(ctx context.Context, err error, n int) error {
	w.spell.abandon()
	clear(w.keys)
	clear(w.items)
	if ctx.Err() != nil {
		return err
	}
	w.poolFailed(CallSave, fmt.Errorf("save of %d pages: %w", n, err))
	w.opts.SaveStats.AddCall(0, 0, n)
	return nil
}

// putItem is the put of page slot s of tr under key.
func (w *Worker) putItem(key string, s int, tr Transfer) pool.PutItem {
	it := pool.PutItem{Key: key, Value: w.opts.Pages.Page(s, tr.Page)}
	if w.opts.SoftPinTTL > 0 {
		it.Options.SoftPin, it.Options.SoftPinTTL = pool.SoftPinEnable, w.opts.SoftPinTTL
	}
	if w.opts.GroupBlocks {
		it.Options.GroupID = w.opts.Keys.GroupKey(tr.Hash)
	}
	return it
}

// put puts w.items through the mover and records the call: a page whose
// put found the key (a put since the exist) counts as saved.
func (w *Worker) put(ctx context.Context, t *stats.PhaseTimer) error {
	w.codes = resize(w.codes, len(w.items))
	if err := w.mover.Save(ctx, t, w.items, w.codes); err != nil {
		return err
	}
	stored, bytes, failed := 0, int64(0), 0
	for i, c := range w.codes {
		if c == pool.OK || c == pool.ObjectAlreadyExists {
			stored++
			bytes += int64(len(w.items[i].Value))
		} else {
			failed++
		}
	}
	w.opts.SaveStats.AddCall(stored, bytes, failed)
	clear(w.items)
	return nil
}

// submit records the performed saves as runs of consecutive blocks.
func (w *Worker) submit(saves []Transfer) {
	for _, tr := range saves {
		if k := len(w.submitted) - 1; k >= 0 && w.submitted[k].ReqID == tr.ReqID && w.submitted[k].To == tr.Block {
			w.submitted[k].To++
			continue
		}
		w.submitted = append(w.submitted, SubmittedSave{ReqID: tr.ReqID, From: tr.Block, To: tr.Block + 1})
	}
}

// LoadAsync performs the loads of one parked request (async_load) and
// reports whether every page landed (get_finished: done, or failed and to
// be restarted). The failure is not reported by TakeFailedLoadRequests.
// On a tensor-parallel rank a missing page is fatal, as for StartLoadKV.
func (w *Worker) LoadAsync(ctx context.Context, loads []Transfer) (landed bool, err error) {
	m := &w.asyncMeta
	m.reset(0)
	m.Loads = append(m.Loads, loads...)
	before := len(w.failed)
	if err := w.StartLoadKV(ctx, m); err != nil {
		return false, err
	}
	if len(w.failed) == before {
		return true, nil
	}
	for _, id := range w.failed[before:] {
		delete(w.failedSet, id)
	}
	w.failed = w.failed[:before]
	return false, nil
}
