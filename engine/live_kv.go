package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
)

// ErrNoKV is the error of TakeKV and ReleaseKV for a name under which no
// KV is held: never held, taken, released or expired.
var ErrNoKV = errors.New("no kv held under that name")

// ErrKVTransfer is the error of a live request whose transferred KV
// (SubmitOptions.KV) was refused: pages that differ from the model's,
// hashes that are not the prompt's, another page layout. TensorRT-LLM
// leaves such a request in state DISAGG_TRANS_ERROR.
var ErrKVTransfer = errors.New("DISAGG_TRANS_ERROR")

// KVBlocks are the KV of a request's full prompt blocks, as a context
// server hands them to a generation server: block b's chain hash and
// its pages, every page slot of the layout one after the other.
type KVBlocks struct {
	// Hashes are the chain hashes of the blocks, from the prompt's first.
	Hashes []keys.Hash
	// BlockBytes is the size of one block's pages.
	BlockBytes int64
	// Pages holds len(Hashes) blocks of BlockBytes, block after block.
	Pages []byte
}

// Block returns the pages of block b.
func (k KVBlocks) Block(b int) []byte {
	off := int64(b) * k.BlockBytes
	return k.Pages[off : off+k.BlockBytes : off+k.BlockBytes]
}

// SubmitOptions are what SubmitWith adds to Submit: the two ends of a KV
// transfer between a context and a generation server.
type SubmitOptions struct {
	// HoldAs, when not empty, keeps the request's pages once it completed,
	// under that name, for TakeKV; ReleaseKV or LiveOptions.KVHoldTimeout
	// ends the hold.
	HoldAs string
	// KV, when not nil, are the prompt's leading blocks computed
	// elsewhere: at arrival they are checked (hashes against the prompt's
	// chain, every page against the model; a mismatch is counted in
	// VerifyMismatches and fails the request with ErrKVTransfer) and
	// installed as the request's local prefix, so only the rest of the
	// prompt is computed. With more than one output token the first one
	// counts as generated (the context server's), as a generation_only
	// request decodes from it.
	KV *KVBlocks
}

// heldKV is a completed request whose pages are held for a transfer.
type heldKV struct {
	e *engine
	r *request
}

// SubmitWith is Submit with the ends of a KV transfer (SubmitOptions).
func (l *Live) SubmitWith(ctx context.Context, w workload.Request, opts SubmitOptions) (*LiveStream, error) {
	return l.submit(ctx, &liveReq{w: w, stream: newLiveStream(), holdAs: opts.HoldAs, kv: opts.KV})
}

// TakeKV copies the KV held under name (SubmitOptions.HoldAs) and ends
// the hold; ErrNoKV when none is held under it.
func (l *Live) TakeKV(ctx context.Context, name string) (KVBlocks, error) {
	var kv KVBlocks
	err := ErrNoKV
	if cerr := l.call(ctx, func() { kv, err = l.takeKV(name) }); cerr != nil {
		return KVBlocks{}, cerr
	}
	return kv, err
}

// ReleaseKV ends the hold under name without copying (the generation
// side gave the transfer up); ErrNoKV when none is held under it.
func (l *Live) ReleaseKV(ctx context.Context, name string) error {
	err := ErrNoKV
	if cerr := l.call(ctx, func() { err = l.releaseKV(name, &l.kvReleased) }); cerr != nil {
		return cerr
	}
	return err
}

// call runs fn on the engine goroutine and waits for it.
func (l *Live) call(ctx context.Context, fn func()) error {
	done := make(chan struct{})
	select {
	case l.ops <- func() { fn(); close(done) }:
	case <-l.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	<-done // the engine runs it as it takes it
	return nil
}

// hold records the hold of lr's completed request and arms its timeout.
func (l *Live) hold(lr *liveReq) {
	name := lr.holdAs
	if old, ok := l.held[name]; ok { // a name given twice: the newer wins
		l.releaseHeld(old)
	}
	l.held[name] = heldKV{e: lr.owner, r: lr.r}
	if l.opts.KVHoldTimeout > 0 {
		h := l.held[name]
		time.AfterFunc(l.opts.KVHoldTimeout, func() {
			l.call(context.Background(), func() {
				if cur, ok := l.held[name]; ok && cur == h {
					l.releaseKV(name, &l.kvExpired)
				}
			})
		})
	}
}

// takeKV copies the pages of the full prompt blocks held under name and
// ends the hold.
func (l *Live) takeKV(name string) (KVBlocks, error) {
	h, ok := l.held[name]
	if !ok {
		return KVBlocks{}, ErrNoKV
	}
	e, r := h.e, h.r
	n := min(r.promptLen/e.perBlock, r.conn.Chain.NumBlocks(), len(r.alloc.blocks), r.written)
	kv := KVBlocks{Hashes: make([]keys.Hash, n), BlockBytes: e.pages.bytesPerBlock()}
	kv.Pages = make([]byte, int64(n)*kv.BlockBytes)
	for b := range n {
		kv.Hashes[b] = r.conn.Chain.Hash(b)
		dst := kv.Block(b)
		for i := range e.pages.slots {
			dst = dst[copy(dst, e.pages.Page(i, r.alloc.blocks[b])):]
		}
	}
	l.kvSent++
	l.kvSentBlocks += int64(n)
	return kv, l.releaseKV(name, nil)
}

// releaseKV ends the hold under name, counted in counter when not nil.
func (l *Live) releaseKV(name string, counter *int64) error {
	h, ok := l.held[name]
	if !ok {
		return ErrNoKV
	}
	delete(l.held, name)
	l.releaseHeld(h)
	if counter != nil {
		*counter++
	}
	l.publish()
	return nil
}

// releaseHeld frees a held request's pages (once its saves are
// confirmed, when they are not yet).
func (l *Live) releaseHeld(h heldKV) {
	h.r.held = false
	if h.r.phase == phaseHeld {
		h.e.retire(h.r)
	}
}

// install checks the transferred KV of request r, just arrived on owner
// e, and pins its blocks in e's KV cache as r's local prefix: the leading
// ones e caches already, then copies of the rest, as many as the free
// pages take (r computes what is left).
func (l *Live) install(e *engine, r *request, kv *KVBlocks) error {
	if err := checkKV(e, r, kv); err != nil {
		return err
	}
	if bad := e.verifyKV(kv); bad > 0 {
		e.counts.mismatches += int64(bad)
		return fmt.Errorf("%d transferred pages differ from the model's: %w", bad, ErrKVTransfer)
	}
	cached := e.kv.match(&r.pin, kv.Hashes, len(kv.Hashes))
	n := min(len(kv.Hashes), cached+e.kv.available())
	if !e.kv.grow(&r.pin, n) {
		panic("engine: grow failed within available pages")
	}
	for b := cached; b < n; b++ {
		page, src := r.pin.blocks[b], kv.Block(b)
		for i := range e.pages.slots {
			src = src[copy(e.pages.Page(i, page), src):]
		}
		e.pages.landed(page, kv.Hashes[b])
		e.kv.register(&r.pin, b, kv.Hashes[b])
	}
	l.kvReceived++
	l.kvInstalledBlocks += int64(n)
	if r.outputLen > 1 { // decode from the context server's first token
		r.generated, r.hasFirstTok, r.lastTokMS = 1, true, r.arrivalMS
		r.conn.Chain.Extend([]int64{NextToken(r.decodeSeed, r.promptLen)})
	}
	return nil
}

// verifyKV counts the pages of kv that differ from the model's KV of
// their block's hash.
func (e *engine) verifyKV(kv *KVBlocks) int {
	bad := 0
	for b, h := range kv.Hashes {
		src := kv.Block(b)
		for _, s := range e.pages.slots {
			if !e.model.Equal(src[:s.Bytes], h, s.LayerGroup.ID, s.Rank()) {
				bad++
			}
			src = src[s.Bytes:]
		}
	}
	return bad
}

// checkKV checks that kv fits r on e: e's page layout, hashes of r's
// prompt blocks.
func checkKV(e *engine, r *request, kv *KVBlocks) error {
	if kv.BlockBytes != e.pages.bytesPerBlock() {
		return fmt.Errorf("transferred blocks of %d bytes, this server's are %d (another layout): %w", kv.BlockBytes, e.pages.bytesPerBlock(), ErrKVTransfer)
	}
	if int64(len(kv.Pages)) != int64(len(kv.Hashes))*kv.BlockBytes {
		return fmt.Errorf("transferred %d bytes for %d blocks of %d: %w", len(kv.Pages), len(kv.Hashes), kv.BlockBytes, ErrKVTransfer)
	}
	full := min(r.promptLen/e.perBlock, r.conn.Chain.NumBlocks())
	if len(kv.Hashes) > full {
		return fmt.Errorf("transferred %d blocks, the prompt has %d full ones: %w", len(kv.Hashes), full, ErrKVTransfer)
	}
	for b, h := range kv.Hashes {
		if h != r.conn.Chain.Hash(b) {
			e.counts.mismatches++
			return fmt.Errorf("transferred block %d is not the prompt's (its hash differs): %w", b, ErrKVTransfer)
		}
	}
	return nil
}

// unpin drops r's pin of its transferred blocks: it holds them through
// its own allocation once admitted, or never will.
func (e *engine) unpin(r *request) {
	if len(r.pin.blocks) > 0 {
		e.kv.release(&r.pin)
	}
}
