package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/internal/ctxwait"
)

// kvFetcher is a generation server's side of the KV transfer: it takes
// a generation_only request's KV from the context server that holds it.
type kvFetcher struct {
	opts    KVTransferOptions
	metrics *kvMetrics
	mu      sync.Mutex
	rng     *rand.Rand // the fault draws
}

func newKVFetcher(opts KVTransferOptions, m *kvMetrics) *kvFetcher {
	return &kvFetcher{opts: opts, metrics: m, rng: rand.New(rand.NewPCG(opts.Seed, 0x6b76747866657273))}
}

// fetch takes the KV of ctx_request_id id from the context server at
// endpoint within the transfer timeout, paced on the link; a failure
// wraps engine.ErrKVTransfer and is reported to the context server, whose
// hold then ends.
func (f *kvFetcher) fetch(ctx context.Context, endpoint string, id int64, auth string) (*engine.KVBlocks, error) {
	base, err := ParseUpstream(endpoint)
	if err != nil {
		return nil, fmt.Errorf("ctx_info_endpoint: %w", err)
	}
	url := strings.TrimSuffix(base, "/") + KVPath + holdName(id)
	tctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	kv, reason, err := f.get(tctx, url, auth)
	if err == nil {
		f.metrics.received.Inc()
		f.metrics.receivedBytes.Add(float64(len(kv.Pages)))
		return kv, nil
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		reason, err = "timeout", fmt.Errorf("timed out after %v (--kv-transfer-timeout)", f.opts.Timeout)
	}
	f.metrics.failures.WithLabelValues(reason).Inc()
	go f.release(url, auth)
	return nil, fmt.Errorf("kv transfer of ctx_request_id %d from %s: %w: %w", id, base, err, engine.ErrKVTransfer)
}

// get fetches url: the injected delay and fault, then the transfer. The
// reason names a failure for the metrics.
func (f *kvFetcher) get(ctx context.Context, url, auth string) (*engine.KVBlocks, string, error) {
	if f.opts.Delay > 0 && !ctxwait.Sleep(ctx, f.opts.Delay) {
		return nil, "error", ctx.Err()
	}
	if f.fault() {
		return nil, "fault", errors.New("injected fault (--fault-kv-transfer-error-rate)")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "error", err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := f.opts.Client.Do(req)
	if err != nil {
		return nil, "error", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "error", upstreamStatus(resp)
	}
	kv, err := decodeKV(resp.Header, &pacedReader{ctx: ctx, r: resp.Body, start: time.Now(), gbps: f.opts.GBps}, maxKVTransfer)
	if err != nil {
		return nil, "error", err
	}
	return &kv, "", nil
}

// fault draws whether this fetch fails (KVTransferOptions.ErrorRate).
func (f *kvFetcher) fault() bool {
	if f.opts.ErrorRate <= 0 {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.Float64() < f.opts.ErrorRate
}

// release tells the context server that the transfer of url was given
// up, so that it frees the pages now, not at its hold's timeout (best
// effort: a hold it no longer has is fine).
func (f *kvFetcher) release(url, auth string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil)
	if err != nil {
		return
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if resp, err := f.opts.Client.Do(req); err == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
	}
}

// upstreamStatus is the error of a context server's answer other than
// 200: its status and error message.
func upstreamStatus(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	msg := strings.TrimSpace(string(b))
	var e apiError
	if jsonErr := json.Unmarshal(b, &e); jsonErr == nil && e.Error.Message != "" {
		msg = e.Error.Message
	}
	return fmt.Errorf("the context server answered %s: %s", resp.Status, msg)
}

// pacedReader reads no faster than gbps GB/s from its start (zero: as
// fast as r gives).
type pacedReader struct {
	ctx   context.Context
	r     io.Reader
	start time.Time
	n     int64
	gbps  float64
}

// Read reads from r, then sleeps until the link would have moved every
// byte read so far.
func (p *pacedReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.gbps > 0 {
		due := p.start.Add(time.Duration(float64(p.n) / p.gbps)) // 1 GB/s is a byte per ns
		if d := time.Until(due); d > 0 && !ctxwait.Sleep(p.ctx, d) {
			return n, p.ctx.Err()
		}
	}
	return n, err
}
