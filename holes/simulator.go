package holes

import (
	"context"
	"errors"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// simulator replays requests into one pool, reusing its buffers.
type simulator struct {
	opts       SimOptions
	st         pool.Store
	exist      pool.LeasingExister
	evict      pool.Evicter
	summary    stats.Holes
	failedPuts int64
	requests   []stats.RequestHoles // with SimOptions.KeepMaps

	keys    []string
	status  []int
	items   []pool.PutItem
	results []pool.Code

	batchKeys []string
	absent    []pool.PutItem
}

// newSimulator replays into st, which must grant leases on exist and leave
// its eviction step to the caller's clock (evict.EvictNow at each tick).
func newSimulator(opts SimOptions, st pool.Store) (*simulator, error) {
	exist, ok := st.(pool.LeasingExister)
	if !ok {
		return nil, errors.New("the simulated pool grants no leases (not a pool.LeasingExister)")
	}
	evict, ok := st.(pool.Evicter)
	if !ok || !evict.ManualEviction() {
		return nil, errors.New("the simulated pool does not leave eviction to the simulator (not a pool.Evicter in manual mode)")
	}
	return &simulator{opts: opts, st: st, exist: exist, evict: evict}, nil
}

// request does what the connector does for one request: a leasing lookup
// of the offerable blocks (never the block holding the last prompt token),
// then saves from the block connector.SaveStart names (the hit, or block 0
// after a miss) to its last full block, each save batch putting only the
// pages its leasing exist finds absent. The holes are those of the
// looked-up blocks.
func (s *simulator) request(ctx context.Context, r Prepared) error {
	T, ppb := s.opts.Keys.BlockTokens(), s.opts.Keys.KeysPerBlock()
	offer := keys.OfferableBlocks(r.PromptTokens, T, r.numBlocks())
	s.keys = r.appendKeys(s.keys[:0], s.opts.Keys)
	cut := offer * ppb
	s.status = grow(s.status, cut)
	if err := s.exist.ExistLeasing(ctx, s.keys[:cut], s.status); err != nil {
		return err
	}
	present, err := stats.BlockPresence(s.status, ppb)
	if err != nil {
		return err
	}
	rh := stats.AnalyzeCounts(present, T)
	rh.PromptTokens = int64(r.PromptTokens)
	countRequest(&s.summary, r.PromptTokens, T, rh)
	if s.opts.KeepMaps {
		rh.ID, rh.Map = r.ID, stats.HoleMap(present)
		s.requests = append(s.requests, rh)
	}
	// No local match is modelled: the lookup offers the hit, all of it
	// is honoured, so the loads end at the hit.
	hit := int(rh.HitBlocks)
	return s.save(ctx, r, connector.SaveStart(hit, hit))
}

// save saves the pages of blocks [from, r.numBlocks()), which the request
// computed, in batches of the connector's transfer_batch_size, as the
// connector's _put does: each batch first runs the leasing exist on its
// keys (present pages get their lease refreshed), then puts only the
// absent ones. No eviction runs within a request: the master's eviction
// thread runs at the clock's ticks, between requests.
func (s *simulator) save(ctx context.Context, r Prepared, from int) error {
	s.pageItems(r, from)
	batch := s.opts.PutBatch
	if batch <= 0 {
		batch = DefaultPutBatch
	}
	for lo := 0; lo < len(s.items); lo += batch {
		if err := s.saveBatch(ctx, s.items[lo:min(lo+batch, len(s.items))]); err != nil {
			return err
		}
	}
	return nil
}

// pageItems fills s.items with the puts of the pages of blocks
// [from, r.numBlocks()), whose keys are in s.keys.
func (s *simulator) pageItems(r Prepared, from int) {
	ppb := s.opts.Keys.KeysPerBlock()
	sizes := keySizes(s.opts)
	s.items = s.items[:0]
	for b := from; b < r.numBlocks(); b++ {
		opt := pool.PutOptions{}
		if s.opts.SoftPinTTL > 0 {
			opt.SoftPin, opt.SoftPinTTL = pool.SoftPinEnable, s.opts.SoftPinTTL
		}
		if s.opts.GroupBlocks && b < len(r.Hashes) {
			opt.GroupID = s.opts.Keys.GroupKey(r.Hashes[b])
		}
		for p := 0; p < ppb; p++ {
			s.items = append(s.items, pool.PutItem{Key: s.keys[b*ppb+p], Size: sizes[p], Options: opt})
		}
	}
}

// saveBatch is one save batch: the leasing exist of its keys, then a put
// of the pages not found present (absent, or whose probe failed: the put
// decides for those). A put that finds no room fails (and the pool asks
// for eviction at the next tick).
func (s *simulator) saveBatch(ctx context.Context, items []pool.PutItem) error {
	s.batchKeys = s.batchKeys[:0]
	for _, it := range items {
		s.batchKeys = append(s.batchKeys, it.Key)
	}
	s.status = grow(s.status, len(items))
	if err := s.exist.ExistLeasing(ctx, s.batchKeys, s.status); err != nil {
		return err
	}
	s.absent = s.absent[:0]
	for i, it := range items {
		if s.status[i] != 1 {
			s.absent = append(s.absent, it)
		}
	}
	if len(s.absent) == 0 {
		return nil
	}
	s.results = grow(s.results, len(s.absent))
	if err := s.st.Put(ctx, s.absent, s.results); err != nil {
		return err
	}
	for _, c := range s.results {
		if c != pool.OK && c != pool.ObjectAlreadyExists {
			s.failedPuts++
		}
	}
	return nil
}

// keySizes lists the size of each key's value of a block, in the order
// of its keys: TensorRT-LLM's page sizes (pageSizes), or KeyBytes for
// each key of another engine.
func keySizes(opts SimOptions) []int64 {
	if opts.Keys.IsTRTLLM() {
		return pageSizes(opts.Keys.Layout)
	}
	sizes := make([]int64, opts.Keys.KeysPerBlock())
	for i := range sizes {
		sizes[i] = opts.KeyBytes
	}
	return sizes
}

// pageSizes lists the size of each page of a block, in AppendBlockKeys
// order: every sharded layer group for every rank, then replicated groups.
func pageSizes(l keys.Layout) []int64 {
	var out []int64
	for _, lg := range l.LayerGroups {
		for range l.Ranks {
			out = append(out, lg.BytesPerPage)
		}
	}
	for _, lg := range l.Replicated {
		out = append(out, lg.BytesPerPage)
	}
	return out
}
