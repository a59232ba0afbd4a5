package keys

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/kvctl/kvctl/internal/hugepages"
	"github.com/kvctl/kvctl/internal/ordered"
)

// Request is a prompt to hash in a stream (HashRequests).
type Request struct {
	// ID names the request in errors; HashRequests reads nothing else of it.
	ID string
	// Scope and Tokens are the prompt's scope and token ids.
	Scope  Scope
	Tokens []int64
	// Release, when set, is called with Tokens once the request's result
	// is built, on the worker that built it: nothing reads them after
	// that, so a source that lends its token arrays can take them back
	// (workload.TokenBuffers.Give).
	Release func(tokens []int64)
}

// release hands the request's tokens back to its source (Release) and
// forgets them.
func (r *Request) release() {
	if r.Release != nil {
		r.Release(r.Tokens)
	}
	r.Tokens = nil
}

// requestBatch is how many requests a worker hashes together: their
// chains go through ExtendAll as one batch.
const requestBatch = 16

// requestWindow is the most batches hashed ahead of the one waiting to be
// emitted.
const requestWindow = 64

// HashRequests hashes a stream of requests under s in parallel and hands
// them back in input order.
//
// source calls yield with each request, in order, and returns the first
// error yield returns, or its own. Requests are hashed on workers
// goroutines (GOMAXPROCS when workers < 1), a batch at a time through
// ExtendAll. On the worker that hashed it, each turns a request and its
// chain into a result (spelling keys, rendering output); emit gets the
// results in input order, from the goroutine that calls yield (the last
// ones from HashRequests itself), one at a time.
//
// The settings are checked first (Validate). The first error of source or
// emit is returned as it is, after the results of every request before
// the one that failed were emitted. Once ctx ends, nothing more is hashed
// or emitted and yield returns ctx.Err(). No goroutine outlives the call.
func HashRequests[R any](ctx context.Context, s Settings, workers int, source func(yield func(Request) error) error,
	each func(Request, *Chain) R, emit func(R) error) error {
	var hashes hashSlab
	return hashStream(ctx, s, workers, source, func(b *hashBatch[R]) { b.hash(s, &hashes, each) }, emit)
}

// hashSlab is where a stream's chains get room for their hashes: carved
// from allocations on huge pages, one take per batch, rather than an
// allocation of each chain's own that is zeroed and, in a long stream,
// faults in fresh memory 4 KiB at a time (docs/benchmarks.md, "Token
// arrays reused, memory on huge pages").
type hashSlab struct {
	mu   sync.Mutex
	slab hugepages.Slab[Hash]
}

// take returns room for n hashes.
func (h *hashSlab) take(n int) []Hash {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slab.Take(n)
}

// HashEngineRequests is HashRequests for an engine other than
// TensorRT-LLM: the same pipeline, each request's blocks computed by
// EngineBlocks on a worker, where each turns them into a result. A
// request EngineBlocks refuses stops the stream after the requests before
// it were emitted.
func HashEngineRequests[R any](ctx context.Context, s Settings, workers int, source func(yield func(Request) error) error,
	each func(Request, []EngineBlock) R, emit func(R) error) error {
	return hashStream(ctx, s, workers, source, func(b *hashBatch[R]) { b.hashEngine(s, each) }, emit)
}

// hashStream runs the pipeline of HashRequests with hash as each batch's
// work.
func hashStream[R any](ctx context.Context, s Settings, workers int, source func(yield func(Request) error) error,
	hash func(*hashBatch[R]), emit func(R) error) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := ordered.Start(ctx, workers, requestWindow, hash,
		func(b *hashBatch[R]) error { return b.emit(ctx, emit) })
	defer p.Stop()
	in := &batcher[R]{ctx: ctx, p: p, b: &hashBatch[R]{}}
	err := source(in.yield)
	if in.stop != nil {
		return in.stop
	}
	if ferr := in.finish(); ferr != nil {
		return ferr
	}
	return err
}

// batcher gathers the requests of a stream into batches for the workers.
type batcher[R any] struct {
	ctx  context.Context
	p    *ordered.Pipeline[*hashBatch[R]]
	b    *hashBatch[R] // the batch being gathered
	n    int           // requests read
	stop error         // the error yield last returned
}

// yield adds a request to the batch, and hands a full batch on.
func (in *batcher[R]) yield(req Request) error {
	if in.stop = in.ctx.Err(); in.stop != nil {
		return in.stop
	}
	if len(in.b.reqs) == 0 {
		in.b.first = in.n
	}
	in.n++
	in.b.reqs = append(in.b.reqs, req)
	if len(in.b.reqs) < requestBatch {
		return nil
	}
	full := in.b
	in.b = &hashBatch[R]{}
	in.stop = in.p.Submit(full)
	return in.stop
}

// finish hands on the last batch and emits every result still pending.
func (in *batcher[R]) finish() error {
	if len(in.b.reqs) > 0 {
		if err := in.p.Submit(in.b); err != nil {
			return err
		}
	}
	return in.p.Finish()
}

// hashBatch is a run of requests hashed together, and their results.
type hashBatch[R any] struct {
	first int // input position of reqs[0]
	reqs  []Request
	out   []R   // the results of reqs[:len(out)]
	err   error // why reqs[len(out)] has no result
}

// hash hashes the batch's requests and builds their results; the chains'
// hashes go in room taken from slab.
func (b *hashBatch[R]) hash(s Settings, slab *hashSlab, each func(Request, *Chain) R) {
	chains := make([]*Chain, 0, len(b.reqs))
	tokens := make([][]int64, 0, len(b.reqs))
	blocks := 0
	for i, req := range b.reqs {
		c, err := s.NewChain(req.Scope)
		if err != nil {
			b.err = fmt.Errorf("request %d (%q): %w", b.first+i+1, req.ID, err)
			break
		}
		chains, tokens = append(chains, c), append(tokens, req.Tokens)
		blocks += c.blocksAfter(len(req.Tokens))
	}
	room := slab.take(blocks)[:blocks]
	for i, c := range chains {
		n := c.blocksAfter(len(tokens[i]))
		c.hashes, room = room[:0:n], room[n:]
	}
	ExtendAll(chains, tokens)
	b.out = make([]R, len(chains))
	for i, c := range chains {
		b.out[i] = each(b.reqs[i], c)
		b.reqs[i].release()
	}
}

// hashEngine computes the batch's requests' blocks under s.Engine and
// builds their results, up to the first request EngineBlocks refuses.
func (b *hashBatch[R]) hashEngine(s Settings, each func(Request, []EngineBlock) R) {
	b.out = make([]R, 0, len(b.reqs))
	for i, req := range b.reqs {
		blocks, err := s.EngineBlocks(req.Scope, req.Tokens)
		if err != nil {
			b.err = fmt.Errorf("request %d (%q): %w", b.first+i+1, req.ID, err)
			return
		}
		b.out = append(b.out, each(req, blocks))
		b.reqs[i].release()
	}
}

// emit hands the batch's results to emit, then returns its error.
func (b *hashBatch[R]) emit(ctx context.Context, emit func(R) error) error {
	for _, r := range b.out {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := emit(r); err != nil {
			return err
		}
	}
	return b.err
}
