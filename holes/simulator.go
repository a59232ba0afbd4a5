package holes

import (
	"context"
	"errors"

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

	keys    []string
	status  []int
	present []bool
	items   []pool.PutItem
	results []pool.Code
}

// newSimulator replays into st, which must grant leases on exist and leave
// its eviction step to the simulator.
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
// then saves of every full block it computed, put-if-absent. The holes are
// those of the looked-up blocks.
func (s *simulator) request(ctx context.Context, r Prepared) error {
	l := s.opts.Keys.Layout
	ppb := l.PagesPerBlock()
	offer := keys.OfferableBlocks(r.PromptTokens, l.TokensPerBlock, len(r.Hashes))
	s.keys = s.keys[:0]
	for _, h := range r.Hashes {
		s.keys = s.opts.Keys.AppendBlockKeys(s.keys, h)
	}
	cut := offer * ppb
	s.status = grow(s.status, cut)
	if err := s.exist.ExistLeasing(ctx, s.keys[:cut], s.status); err != nil {
		return err
	}
	present, err := stats.BlockPresence(s.status, ppb)
	if err != nil {
		return err
	}
	rh := stats.AnalyzeCounts(present, l.TokensPerBlock)
	rh.PromptTokens = int64(r.PromptTokens)
	s.summary.Add(rh)
	return s.save(ctx, r.Hashes, int(rh.HitBlocks))
}

// save puts the pages of blocks [from, len(hashes)), which the request
// computed; present pages are kept (put never overwrites).
func (s *simulator) save(ctx context.Context, hashes []keys.Hash, from int) error {
	l := s.opts.Keys.Layout
	ppb := l.PagesPerBlock()
	sizes := pageSizes(l)
	s.items = s.items[:0]
	for b := from; b < len(hashes); b++ {
		opt := pool.PutOptions{}
		if s.opts.SoftPinTTL > 0 {
			opt.SoftPin, opt.SoftPinTTL = pool.SoftPinEnable, s.opts.SoftPinTTL
		}
		if s.opts.GroupBlocks {
			opt.GroupID = s.opts.Keys.GroupKey(hashes[b])
		}
		for p := 0; p < ppb; p++ {
			s.items = append(s.items, pool.PutItem{Key: s.keys[b*ppb+p], Size: sizes[p], Options: opt})
		}
	}
	s.results = grow(s.results, len(s.items))
	batch := s.opts.PutBatch
	if batch <= 0 {
		batch = DefaultPutBatch
	}
	for lo := 0; lo < len(s.items); lo += batch {
		hi := min(lo+batch, len(s.items))
		if err := s.st.Put(ctx, s.items[lo:hi], s.results[lo:hi]); err != nil {
			return err
		}
		// The master's eviction loop runs between store calls.
		s.evict.EvictNow()
	}
	for _, c := range s.results {
		if c != pool.OK && c != pool.ObjectAlreadyExists {
			s.failedPuts++
		}
	}
	return nil
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
