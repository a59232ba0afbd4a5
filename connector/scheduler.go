package connector

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/stats"
)

// Prober answers the lookup: how many leading blocks of hashes have every
// page in the pool (count_prefix_hit), with the presence of each block.
// The Worker implements it.
type Prober interface {
	CountPrefixHit(ctx context.Context, hashes []keys.Hash) (hit int, present []bool, err error)
}

// SchedulerOptions configure the scheduler half.
type SchedulerOptions struct {
	// Loads enables lookups and loads (roles both and consumer).
	Loads bool
	// Saves enables saves (roles both and producer).
	Saves bool
	// Holes receives prefix-hole statistics of every lookup; nil records
	// nothing.
	Holes *stats.HolesRecorder
}

// Scheduler is the connector's scheduler half: it decides, per request,
// what to offer from the pool, what to load and what to save. It is not
// safe for concurrent use: the runtime's scheduler loop drives it.
type Scheduler struct {
	opts   SchedulerOptions
	prober Prober
	reqs   map[string]*reqState
	pass   uint64
	// finishing lists finished requests whose saves are not all confirmed.
	finishing []string
	meta      Meta // reused by BuildMeta
}

// reqState is the scheduler half's state of one request.
type reqState struct {
	counted bool // counted once in the hole statistics
	// offerStart and offered are the last offer, in blocks.
	offerStart, offered int
	// loadFrom and loadTo are the honoured blocks still to be loaded.
	loadFrom, loadTo int
	// saveNext is the first block not confirmed saved (or never to save);
	// emittedTo is the end of the saves emitted so far.
	saveNext, emittedTo int
	settled             bool
	// req is the request as last seen, for saves emitted again after it
	// finished.
	req *Request
}

// NewScheduler returns the scheduler half, asking prober for lookups.
func NewScheduler(opts SchedulerOptions, prober Prober) *Scheduler {
	return &Scheduler{opts: opts, prober: prober, reqs: map[string]*reqState{}}
}

func (s *Scheduler) state(id string) *reqState {
	st := s.reqs[id]
	if st == nil {
		st = &reqState{}
		s.reqs[id] = st
	}
	return st
}

// GetNumNewMatchedTokens is the lookup (get_num_new_matched_tokens): with
// numComputed tokens matched locally, it returns how many more tokens the
// pool can serve, a multiple of T. It offers nothing when the local match
// is not a whole number of blocks. Candidates run from the local match to
// the block before the one holding the last token; one batched exist
// counts the leading candidates present. An error is the prober's (the
// Worker's only once the context ended: a failed pool call is a miss).
func (s *Scheduler) GetNumNewMatchedTokens(ctx context.Context, r *Request, numComputed int) (int, error) {
	st := s.state(r.ID)
	st.offerStart, st.offered, st.settled, st.req = 0, 0, false, r
	t := r.Chain.TokensPerBlock()
	if !st.counted {
		st.counted = true
		s.opts.Holes.AddRequest(int64(r.NumTokens), int64(keys.FullBlocks(r.NumTokens, t)))
	}
	if !s.opts.Loads || numComputed%t != 0 {
		return 0, nil
	}
	start := numComputed / t
	end := keys.OfferableBlocks(r.NumTokens, t, r.Chain.NumBlocks())
	if start >= end {
		return 0, nil
	}
	hit, present, err := s.prober.CountPrefixHit(ctx, r.Chain.Hashes()[start:end])
	if err != nil {
		return 0, fmt.Errorf("looking up request %q: %w", r.ID, err)
	}
	s.opts.Holes.AddLookup(stats.AnalyzeCounts(present, t))
	st.offerStart, st.offered = start, hit
	return hit * t, nil
}

// UpdateStateAfterAlloc settles the last offer to what the runtime
// honoured once the request's pages were allocated: skipFront tokens
// cancelled from the front of the offer (served otherwise), then honoured
// tokens to load; the rest is cancelled from the back. Both must be whole
// blocks inside the offer. numComputed is the local match the offer was
// made for. It must be called for every admitted request, offer or not.
func (s *Scheduler) UpdateStateAfterAlloc(r *Request, numComputed, skipFront, honoured int) error {
	st := s.state(r.ID)
	t := r.Chain.TokensPerBlock()
	switch {
	case skipFront < 0 || honoured < 0 || skipFront%t != 0 || honoured%t != 0:
		return fmt.Errorf("request %q: honoured %d tokens after skipping %d: not whole blocks of %d", r.ID, honoured, skipFront, t)
	case skipFront+honoured > st.offered*t:
		return fmt.Errorf("request %q: honoured %d tokens after skipping %d, more than the %d offered", r.ID, honoured, skipFront, st.offered*t)
	}
	base := numComputed / t
	if st.offered > 0 {
		base = st.offerStart
	}
	st.loadFrom = base + skipFront/t
	st.loadTo = st.loadFrom + honoured/t
	st.saveNext = saveStart(st)
	st.emittedTo = st.saveNext
	st.settled, st.req = true, r
	return nil
}

// saveStart is the first block to save of a request just settled
// (SaveStart).
func saveStart(st *reqState) int { return SaveStart(st.offered, st.loadTo) }

// SaveStart is the first block a request saves, given the blocks its pool
// lookup offered and the block where its honoured loads end. As upstream's
// build_connector_meta (mooncake_store/scheduler.py), saves start where
// the honoured loads end when the lookup hit
// (saved_upto = max(saved_upto, load_first_block + load_blocks)), and at
// block 0 when it missed (load_first_block is 0 then): the locally
// matched blocks are saved again, which repairs a pool that lost the head
// of a chain the GPU still holds and refreshes their leases (the save
// runs a leasing exist first; see Worker.WaitForSave).
func SaveStart(offered, loadTo int) int {
	if offered > 0 {
		return loadTo
	}
	return 0
}

// BuildMeta is build_connector_meta: the loads of every honoured block not
// yet loaded, and the saves of blocks computed by this pass,
// limit = min(addressable, (computed + loaded_this_pass + scheduled) / T),
// from the first block not confirmed saved (so saves of a pass that never
// reached the worker are emitted again). A block to load without a
// destination page is an error. The Meta is the scheduler's own, valid
// until the next BuildMeta.
func (s *Scheduler) BuildMeta(pass []Scheduled) (*Meta, error) {
	s.pass++
	m := &s.meta
	m.reset(s.pass)
	for _, sc := range pass {
		st := s.reqs[sc.Req.ID]
		if st == nil || !st.settled {
			return nil, fmt.Errorf("request %q is scheduled but was never settled (update_state_after_alloc)", sc.Req.ID)
		}
		loaded, err := s.emitLoads(m, sc.Req, st)
		if err != nil {
			return nil, err
		}
		if s.opts.Saves {
			s.emitSaves(m, sc, st, loaded)
		}
	}
	s.emitFinishing(m)
	return m, nil
}

// emitFinishing emits again the unconfirmed saves of finished requests.
func (s *Scheduler) emitFinishing(m *Meta) {
	kept := s.finishing[:0]
	for _, id := range s.finishing {
		st := s.reqs[id]
		if st == nil || st.saveNext >= st.emittedTo {
			continue
		}
		kept = append(kept, id)
		r := st.req
		for b := st.saveNext; b < st.emittedTo; b++ {
			m.Saves = append(m.Saves, Transfer{ReqID: id, Block: b, Hash: r.Chain.Hash(b), Page: r.Blocks[b]})
		}
	}
	s.finishing = kept
}

func (s *Scheduler) emitLoads(m *Meta, r *Request, st *reqState) (loadedTokens int, err error) {
	n := st.loadTo - st.loadFrom
	if n <= 0 {
		return 0, nil
	}
	for b := st.loadFrom; b < st.loadTo; b++ {
		if b >= len(r.Blocks) || b >= r.Chain.NumBlocks() {
			return 0, fmt.Errorf("request %q: block %d to load has no destination page (%d allocated)", r.ID, b, len(r.Blocks))
		}
		m.Loads = append(m.Loads, Transfer{ReqID: r.ID, Block: b, Hash: r.Chain.Hash(b), Page: r.Blocks[b]})
	}
	st.loadFrom = st.loadTo
	return n * r.Chain.TokensPerBlock(), nil
}

func (s *Scheduler) emitSaves(m *Meta, sc Scheduled, st *reqState, loaded int) {
	r := sc.Req
	t := r.Chain.TokensPerBlock()
	addressable := min(r.Chain.NumBlocks(), len(r.Blocks))
	limit := min(addressable, (sc.Computed+loaded+sc.NumScheduled)/t)
	for b := st.saveNext; b < limit; b++ {
		m.Saves = append(m.Saves, Transfer{ReqID: r.ID, Block: b, Hash: r.Chain.Hash(b), Page: r.Blocks[b]})
	}
	st.emittedTo = max(st.emittedTo, limit)
}

// ConfirmSaves marks saves the worker queued as stored
// (take_submitted_saves): they are not emitted again.
func (s *Scheduler) ConfirmSaves(done []SubmittedSave) {
	for _, d := range done {
		st := s.reqs[d.ReqID]
		if st != nil && d.From <= st.saveNext {
			st.saveNext = max(st.saveNext, d.To)
		}
	}
}

// PendingSaves is the number of request id's emitted saves not yet
// confirmed.
func (s *Scheduler) PendingSaves(id string) int {
	st := s.reqs[id]
	if st == nil {
		return 0
	}
	return max(0, st.emittedTo-st.saveNext)
}

// RequestFinished is request_finished: it reports whether the runtime must
// keep the request's pages until its saves are confirmed (then call
// Forget once PendingSaves is 0); otherwise the request is forgotten now.
func (s *Scheduler) RequestFinished(id string) (keepPages bool) {
	if s.PendingSaves(id) > 0 {
		s.finishing = append(s.finishing, id)
		return true
	}
	s.Forget(id)
	return false
}

// Forget drops everything the scheduler half knows of request id.
func (s *Scheduler) Forget(id string) { delete(s.reqs, id) }

// RequestReset is request_reset: the request restarts (its load failed,
// or it was preempted): its unconfirmed saves and pending loads are
// dropped and it is looked up afresh when readmitted.
func (s *Scheduler) RequestReset(id string) {
	st := s.reqs[id]
	if st == nil {
		return
	}
	*st = reqState{counted: st.counted}
}

// TakeLoads emits request r's honoured loads at once, appended to dst, for
// an async load (async_load: the request is parked outside the batch while
// they run, and rejoins when get_finished reports them). BuildMeta does
// not emit them again. A block without a destination page is an error.
func (s *Scheduler) TakeLoads(dst []Transfer, r *Request) ([]Transfer, error) {
	st := s.reqs[r.ID]
	if st == nil || !st.settled {
		return dst, fmt.Errorf("request %q: loads taken before it was settled (update_state_after_alloc)", r.ID)
	}
	m := Meta{Loads: dst}
	_, err := s.emitLoads(&m, r, st)
	return m.Loads, err
}
