package holes

import (
	"context"
	"errors"
	"fmt"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/workload"
)

// Probe names.
const (
	ProbeReadOnly = "read-only"
	ProbeLeasing  = "leasing"
)

// DefaultChunkKeys is the most keys Probe asks the pool about in one call.
const DefaultChunkKeys = 8192

// ProbeOptions configure Probe.
type ProbeOptions struct {
	// Keys decides the page keys; each request brings its own scope.
	Keys keys.Settings
	// Leasing probes as the connector's batch_is_exist does (Mooncake's
	// BatchExistKey): every present page's lease is extended. The pool must
	// implement pool.LeasingExister.
	Leasing bool
	// ChunkKeys is the most keys per exist call (default DefaultChunkKeys).
	ChunkKeys int
	// Progress, when set, is called after each request with the number done.
	Progress func(done int)
}

// Report is the result of Probe: one entry per request and their summary.
type Report struct {
	Probe    string               `json:"probe"`
	Pool     string               `json:"pool"`
	Summary  stats.Holes          `json:"summary"`
	Requests []stats.RequestHoles `json:"requests"`
	// Diagnosis, when set, says why the probe found nothing: what the
	// pool holds instead (the caller fills it).
	Diagnosis string `json:"diagnosis,omitempty"`
	// Interrupted says ctx ended the probe: the report covers the
	// requests probed before it did.
	Interrupted bool `json:"interrupted,omitempty"`
}

// ErrNoLeasing is returned when a leasing probe is asked of a pool that
// cannot grant leases.
var ErrNoLeasing = errors.New("pool cannot probe with leases")

// Probe looks up every request's blocks in st and maps its holes. poolName
// is recorded in the report. When ctx ends first, the report so far comes
// back, marked Interrupted, with ctx's error.
func Probe(ctx context.Context, st pool.Store, poolName string, src workload.Source, opts ProbeOptions) (Report, error) {
	rep := Report{Probe: ProbeReadOnly, Pool: poolName, Requests: []stats.RequestHoles{}}
	exist := st.Exist
	if opts.Leasing {
		le, ok := st.(pool.LeasingExister)
		if !ok {
			return rep, fmt.Errorf("%w: %s", ErrNoLeasing, poolName)
		}
		exist, rep.Probe = le.ExistLeasing, ProbeLeasing
	}
	if err := checkModelKey(opts.Keys); err != nil {
		return rep, err
	}
	p := newProber(opts, exist)
	err := src.Each(func(req workload.Request) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rh, err := p.request(ctx, req)
		if err != nil {
			return fmt.Errorf("request %q: %w", req.ID, err)
		}
		countRequest(&rep.Summary, len(req.Tokens), p.opts.Keys.BlockTokens(), rh)
		rep.Requests = append(rep.Requests, rh)
		if opts.Progress != nil {
			opts.Progress(len(rep.Requests))
		}
		return nil
	})
	rep.Interrupted = errors.Is(err, context.Canceled)
	return rep, err
}

type existFunc func(ctx context.Context, keys []string, status []int) error

// prober holds the buffers reused from one request to the next.
type prober struct {
	opts   ProbeOptions
	exist  existFunc
	keys   []string
	status []int
}

func newProber(opts ProbeOptions, exist existFunc) *prober {
	if opts.ChunkKeys <= 0 {
		opts.ChunkKeys = DefaultChunkKeys
	}
	return &prober{opts: opts, exist: exist}
}

// PromptProbe is what a probe of one prompt found.
type PromptProbe struct {
	// Keys are the page keys of the prompt's full blocks, block by block,
	// KeysPerBlock a block (keys.Settings.KeysPerBlock).
	Keys         []string
	KeysPerBlock int
	// Status is each key's exist status (pool.Store.Exist).
	Status []int
	// Holes maps the blocks: a block is present when all its pages are.
	Holes stats.RequestHoles
}

// ProbePrompt looks up the full blocks of one prompt, scoped by s.Scope,
// in st (read-only), in one exist call per DefaultChunkKeys keys, as
// Probe looks up each request.
func ProbePrompt(ctx context.Context, st pool.Store, s keys.Settings, tokens []int64) (PromptProbe, error) {
	if err := checkModelKey(s); err != nil {
		return PromptProbe{}, err
	}
	p := newProber(ProbeOptions{Keys: s}, st.Exist)
	rh, err := p.lookup(ctx, s.Scope, tokens)
	if err != nil {
		return PromptProbe{}, err
	}
	rh.PromptTokens = int64(len(tokens))
	return PromptProbe{Keys: p.keys, Status: p.status, KeysPerBlock: s.KeysPerBlock(), Holes: rh}, nil
}

// checkModelKey refuses to probe without a model key, which every
// engine's keys but SGLang's (whose model prefix is optional) contain.
func checkModelKey(s keys.Settings) error {
	if s.Namespace.ModelKey == "" && s.Engine != keys.EngineSGLang {
		return errors.New("probing needs a model key: page keys contain it")
	}
	return nil
}

// request probes one request's full blocks.
func (p *prober) request(ctx context.Context, req workload.Request) (stats.RequestHoles, error) {
	rh, err := p.lookup(ctx, req.Scope(), req.Tokens)
	if err != nil {
		return rh, err
	}
	rh.ID, rh.PromptTokens = req.ID, int64(len(req.Tokens))
	return rh, nil
}

// lookup probes the full blocks of a prompt under scope, as the engine's
// connector looks them up (keys.Settings.AppendLookupKeys), leaving their
// keys and statuses in p.keys and p.status.
func (p *prober) lookup(ctx context.Context, scope keys.Scope, tokens []int64) (stats.RequestHoles, error) {
	var err error
	if p.keys, _, err = p.opts.Keys.AppendLookupKeys(p.keys[:0], scope, tokens); err != nil {
		return stats.RequestHoles{}, err
	}
	p.status = grow(p.status, len(p.keys))
	for lo := 0; lo < len(p.keys); lo += p.opts.ChunkKeys {
		hi := min(lo+p.opts.ChunkKeys, len(p.keys))
		if err := p.exist(ctx, p.keys[lo:hi], p.status[lo:hi]); err != nil {
			return stats.RequestHoles{}, err
		}
	}
	present, err := stats.BlockPresence(p.status, p.opts.Keys.KeysPerBlock())
	if err != nil {
		return stats.RequestHoles{}, err
	}
	return stats.Analyze(present, p.opts.Keys.BlockTokens()), nil
}

// countRequest counts one request of promptTokens tokens, whose "blocks"
// are its full blocks (keys.FullBlocks) whatever its lookup rh examined, and
// the lookup.
func countRequest(h *stats.Holes, promptTokens, tokensPerBlock int, rh stats.RequestHoles) {
	h.AddRequest(int64(promptTokens), int64(keys.FullBlocks(promptTokens, tokensPerBlock)))
	h.AddLookup(rh)
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
