package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
)

// KVPath is the path under which a context server serves the KV it
// holds: GET KVPath+ctx_request_id takes it, DELETE releases it.
const KVPath = "/v1/disagg/kv/"

// The headers of a KV transfer's answer; its body is the blocks in
// order, each its chain hash (keys.HashSize bytes) then its pages
// (KVBlockBytesHeader bytes).
const (
	KVBlocksHeader     = "Kvctl-Kv-Blocks"
	KVBlockBytesHeader = "Kvctl-Kv-Block-Bytes"
)

// maxKVTransfer bounds the body of a KV transfer a generation server
// reads.
const maxKVTransfer = 16 << 30

// KVTransferOptions configure the KV transfer between a context server
// and a generation server. Zero fields take the documented defaults.
type KVTransferOptions struct {
	// Timeout is kv_transfer_timeout_ms: how long a context server holds
	// a request's KV for a generation server to take, and how long a
	// generation server's fetch may take; default
	// engine.DefaultKVTransferTimeout.
	Timeout time.Duration
	// GBps paces a generation server's reads of the KV to this link
	// speed, in GB/s; zero reads as fast as the network allows.
	GBps float64
	// ErrorRate is the probability that a fetch fails before it starts
	// (an injected fault, drawn from Seed); Delay is added to every fetch.
	ErrorRate float64
	Delay     time.Duration
	Seed      uint64
	// Client makes the fetches; default a client without a timeout
	// (Timeout bounds each fetch).
	Client *http.Client
}

func (o *KVTransferOptions) setDefaults() {
	if o.Timeout <= 0 {
		o.Timeout = engine.DefaultKVTransferTimeout
	}
	if o.Client == nil {
		o.Client = &http.Client{}
	}
}

// holdName is the name under which a context server holds the KV of
// ctx_request_id id.
func holdName(id int64) string { return strconv.FormatInt(id, 10) }

// takeKV answers GET KVPath{id}: the KV held under ctx_request_id id,
// whose hold ends; 404 naming the id when none is held.
func (c *completions) takeKV(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	kv, err := c.live.TakeKV(r.Context(), id)
	if err != nil {
		c.kvHoldError(w, id, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set(KVBlocksHeader, strconv.Itoa(len(kv.Hashes)))
	h.Set(KVBlockBytesHeader, strconv.FormatInt(kv.BlockBytes, 10))
	h.Set("Content-Length", strconv.FormatInt(int64(len(kv.Hashes))*(keys.HashSize+kv.BlockBytes), 10))
	w.WriteHeader(http.StatusOK)
	for b, hash := range kv.Hashes {
		if _, err := w.Write(hash[:]); err != nil {
			return // the generation server is gone: its fetch failed
		}
		if _, err := w.Write(kv.Block(b)); err != nil {
			return
		}
	}
	c.metrics.kv.sent.Inc()
	c.metrics.kv.sentBytes.Add(float64(len(kv.Pages)))
}

// releaseKV answers DELETE KVPath{id}: a generation server gave the
// transfer up, the hold ends.
func (c *completions) releaseKV(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := c.live.ReleaseKV(r.Context(), id); err != nil {
		c.kvHoldError(w, id, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// kvHoldError answers a KV path's failure: 404 for an id not held.
func (c *completions) kvHoldError(w http.ResponseWriter, id string, err error) {
	if errors.Is(err, engine.ErrNoKV) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("ctx_request_id %q: no KV held under it (unknown, taken, released or expired after --kv-transfer-timeout)", id), "not_found_error")
		return
	}
	c.fail(w, err)
}

// decodeKV reads a KV transfer's answer: its headers h and body, at
// most limit bytes.
func decodeKV(h http.Header, body io.Reader, limit int64) (engine.KVBlocks, error) {
	var kv engine.KVBlocks
	n, err := strconv.Atoi(h.Get(KVBlocksHeader))
	if err != nil || n < 0 {
		return kv, fmt.Errorf("header %s %q: want a block count", KVBlocksHeader, h.Get(KVBlocksHeader))
	}
	kv.BlockBytes, err = strconv.ParseInt(h.Get(KVBlockBytesHeader), 10, 64)
	if err != nil || kv.BlockBytes <= 0 {
		return kv, fmt.Errorf("header %s %q: want a positive size", KVBlockBytesHeader, h.Get(KVBlockBytesHeader))
	}
	if total := int64(n) * (keys.HashSize + kv.BlockBytes); kv.BlockBytes > limit || int64(n) > limit || total > limit {
		return kv, fmt.Errorf("%d blocks of %d bytes: more than the %d bytes a transfer may hold", n, kv.BlockBytes, limit)
	}
	kv.Hashes, kv.Pages = make([]keys.Hash, n), make([]byte, int64(n)*kv.BlockBytes)
	for b := range n {
		if _, err := io.ReadFull(body, kv.Hashes[b][:]); err != nil {
			return kv, fmt.Errorf("reading block %d of %d: %w", b, n, err)
		}
		if _, err := io.ReadFull(body, kv.Block(b)); err != nil {
			return kv, fmt.Errorf("reading block %d of %d: %w", b, n, err)
		}
	}
	return kv, nil
}
