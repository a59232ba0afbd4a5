package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
)

// withKV sets the server's KV transfer options.
func withKV(role string, x KVTransferOptions) func(*Options) {
	return func(o *Options) { o.Role, o.KVTransfer = role, x }
}

// longPrompt has many full blocks at T=16 and a partial one after.
var longPrompt = strings.Repeat("the quick brown fox jumps over the lazy dog ", 9)

// holdContext asks ctx for a context_only answer and returns its params.
func holdContext(t *testing.T, ctx *testServer) DisaggParams {
	t.Helper()
	c := ctx.complete(t, `{"prompt":"`+longPrompt+`","disaggregated_params":{"request_type":"context_only"}}`)
	return *c.Choices[0].DisaggregatedParams
}

// generationBody is a generation_only request for params p from endpoint.
func generationBody(p DisaggParams, endpoint string, maxTokens int) string {
	return fmt.Sprintf(`{"prompt":%q,"max_tokens":%d,"disaggregated_params":{"request_type":"generation_only","ctx_request_id":%d,"first_gen_tokens":[%d],"ctx_info_endpoint":%q}}`,
		longPrompt, maxTokens, *p.CtxRequestID, p.FirstGenTokens[0], endpoint)
}

// metrics returns a server's /metrics.
func (ts *testServer) metrics(t *testing.T) []byte {
	t.Helper()
	_, b := ts.get(t, "/metrics")
	return b
}

// TestKVTransferInstallsPages runs a context server, a generation server
// and the front: the generation server computes only the prompt's last
// partial block, every full block arriving from the context server.
func TestKVTransferInstallsPages(t *testing.T) {
	plain := startServer(t, nil)
	ctx := startServer(t, withRole(RoleContext))
	gen := startServer(t, withKV(RoleGeneration, KVTransferOptions{GBps: 1}))
	front := startFront(t, []string{ctx.url}, []string{gen.url}, FrontOptions{})
	body := `{"prompt":"` + longPrompt + `","max_tokens":7}`
	want := plain.complete(t, body)
	got := (&testServer{url: front.URL}).complete(t, body)
	if got.Choices[0].Text != want.Choices[0].Text {
		t.Errorf("text through the front = %q, want %q", got.Choices[0].Text, want.Choices[0].Text)
	}
	prompt := want.Usage.PromptTokens
	gm, cm := gen.metrics(t), ctx.metrics(t)
	wantGen := map[string]float64{
		"kvctl_computed_tokens_total":            float64(prompt % 16),
		"kvctl_disagg_kv_installed_blocks_total": float64(prompt / 16),
		"kvctl_disagg_kv_received_total":         1,
		"kvctl_verify_mismatches_total":          0,
	}
	for name, v := range wantGen {
		if g := metricValue(t, gm, name); g != v {
			t.Errorf("generation server %s = %v, want %v (prompt of %d tokens)", name, g, v, prompt)
		}
	}
	bytesPerBlock := metricValue(t, gm, "kvctl_disagg_kv_received_bytes_total") / float64(prompt/16)
	wantCtx := map[string]float64{"kvctl_disagg_kv_sent_total": 1, "kvctl_disagg_kv_sent_blocks_total": float64(prompt / 16),
		"kvctl_disagg_kv_held": 0, "kvctl_disagg_kv_sent_bytes_total": bytesPerBlock * float64(prompt/16)}
	for name, v := range wantCtx {
		if g := metricValue(t, cm, name); g != v {
			t.Errorf("context server %s = %v, want %v", name, g, v)
		}
	}
}

func TestKVTransferUnknownOrExpired(t *testing.T) {
	ctx := startServer(t, withKV(RoleContext, KVTransferOptions{Timeout: 20 * time.Millisecond}))
	status, b := ctx.get(t, KVPath+"77")
	if status != http.StatusNotFound || !strings.Contains(string(b), `ctx_request_id \"77\"`) {
		t.Errorf("GET %s77 = %d %s, want 404 naming the id", KVPath, status, b)
	}
	p := holdContext(t, ctx)
	waitFor(t, "the hold to expire", func() bool { return metricValue(t, ctx.metrics(t), "kvctl_disagg_kv_expired_total") == 1 })
	path := KVPath + fmt.Sprint(*p.CtxRequestID)
	if status, b := ctx.get(t, path); status != http.StatusNotFound || !strings.Contains(string(b), "expired") {
		t.Errorf("GET %s after its hold expired = %d %s, want 404", path, status, b)
	}
	gen := startServer(t, withRole(RoleGeneration))
	status, b = gen.post(t, "/v1/completions", generationBody(p, ctx.url, 3))
	checkTransferError(t, status, b, "404 Not Found")
	if g := metricValue(t, gen.metrics(t), `kvctl_disagg_kv_receive_failures_total{reason="error"}`); g != 1 {
		t.Errorf("receive failures (error) = %v, want 1", g)
	}
}

// checkTransferError checks a DISAGG_TRANS_ERROR answer holding want.
func checkTransferError(t *testing.T, status int, b []byte, want string) {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(b, &e); err != nil || status != http.StatusInternalServerError ||
		e.Error.Code == nil || *e.Error.Code != "DISAGG_TRANS_ERROR" || !strings.Contains(e.Error.Message, want) {
		t.Errorf("answer = %d %s, want 500 with code DISAGG_TRANS_ERROR holding %q", status, b, want)
	}
}

// relay serves ctx's KV paths through edit (or stalls its GETs),
// counting the releases.
type relay struct {
	*httptest.Server
	releases atomic.Int64
	// stallGets never answers a GET (nor forwards it)
	stallGets bool
}

func newRelay(t *testing.T, ctx *testServer, stallGets bool, edit func(w http.ResponseWriter, r *http.Request, resp *http.Response)) *relay {
	rl := &relay{stallGets: stallGets}
	rl.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			rl.releases.Add(1)
		}
		if r.Method == http.MethodGet && rl.stallGets {
			<-r.Context().Done()
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, ctx.url+r.URL.Path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		edit(w, r, resp)
	}))
	t.Cleanup(rl.Close)
	return rl
}

func TestKVTransferCorrupted(t *testing.T) {
	ctx := startServer(t, withRole(RoleContext))
	flip := newRelay(t, ctx, false, func(w http.ResponseWriter, _ *http.Request, resp *http.Response) {
		b, _ := io.ReadAll(resp.Body)
		if len(b) > 0 {
			b[len(b)-1] ^= 0xff // the last block's last page byte
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(b)
	})
	gen := startServer(t, withRole(RoleGeneration))
	status, b := gen.post(t, "/v1/completions", generationBody(holdContext(t, ctx), flip.URL, 3))
	checkTransferError(t, status, b, "differ from the model's")
	m := gen.metrics(t)
	if g := metricValue(t, m, "kvctl_verify_mismatches_total"); g < 1 {
		t.Errorf("kvctl_verify_mismatches_total = %v, want at least 1", g)
	}
	if g := metricValue(t, m, `kvctl_disagg_kv_receive_failures_total{reason="refused"}`); g != 1 {
		t.Errorf("receive failures (refused) = %v, want 1", g)
	}
}

func TestKVTransferTimesOut(t *testing.T) {
	ctx := startServer(t, withRole(RoleContext))
	stall := newRelay(t, ctx, true, func(w http.ResponseWriter, _ *http.Request, resp *http.Response) {
		w.WriteHeader(resp.StatusCode)
	})
	gen := startServer(t, withKV(RoleGeneration, KVTransferOptions{Timeout: 50 * time.Millisecond}))
	p := holdContext(t, ctx)
	status, b := gen.post(t, "/v1/completions", generationBody(p, stall.URL, 3))
	checkTransferError(t, status, b, "timed out after 50ms")
	if g := metricValue(t, gen.metrics(t), `kvctl_disagg_kv_receive_failures_total{reason="timeout"}`); g != 1 {
		t.Errorf("receive failures (timeout) = %v, want 1", g)
	}
	// the generation server reports the failure: the context server frees the pages
	waitFor(t, "the hold to be released", func() bool { return metricValue(t, ctx.metrics(t), "kvctl_disagg_kv_released_total") == 1 })
	if n := stall.releases.Load(); n != 1 {
		t.Errorf("releases sent = %d, want 1", n)
	}
}

func TestKVTransferFault(t *testing.T) {
	ctx := startServer(t, withRole(RoleContext))
	gen := startServer(t, withKV(RoleGeneration, KVTransferOptions{ErrorRate: 1}))
	status, b := gen.post(t, "/v1/completions", generationBody(holdContext(t, ctx), ctx.url, 3))
	checkTransferError(t, status, b, "injected fault")
	waitFor(t, "the hold to be released", func() bool { return metricValue(t, ctx.metrics(t), "kvctl_disagg_kv_held") == 0 })
	// through the front, whole or streamed, the client gets the error as the generation server answered it
	front := startFront(t, []string{ctx.url}, []string{gen.url}, FrontOptions{})
	for _, stream := range []string{"false", "true"} {
		status, b := (&testServer{url: front.URL}).post(t, "/v1/completions", `{"prompt":"`+longPrompt+`","max_tokens":4,"stream":`+stream+`}`)
		checkTransferError(t, status, b, "injected fault")
	}
	waitFor(t, "every hold to be released", func() bool { return metricValue(t, ctx.metrics(t), "kvctl_disagg_kv_released_total") == 3 })
}

func TestDecodeKV(t *testing.T) {
	h1, h2 := keys.Hash{1}, keys.Hash{2}
	good := append(append(append(h1[:], 1, 2, 3), h2[:]...), 4, 5, 6)
	header := func(blocks, size string) http.Header {
		return http.Header{KVBlocksHeader: {blocks}, KVBlockBytesHeader: {size}}
	}
	tests := []struct {
		name    string
		h       http.Header
		body    []byte
		want    engine.KVBlocks
		wantErr string
	}{
		{"two blocks", header("2", "3"), good, engine.KVBlocks{Hashes: []keys.Hash{h1, h2}, BlockBytes: 3, Pages: []byte{1, 2, 3, 4, 5, 6}}, ""},
		{"none", header("0", "3"), nil, engine.KVBlocks{Hashes: []keys.Hash{}, BlockBytes: 3, Pages: []byte{}}, ""},
		{"short body", header("2", "3"), good[:len(good)-1], engine.KVBlocks{}, "reading block 1 of 2"},
		{"no count", header("", "3"), good, engine.KVBlocks{}, "Kvctl-Kv-Blocks"},
		{"zero size", header("2", "0"), good, engine.KVBlocks{}, "want a positive size"},
		{"too large", header("2", "1000000"), good, engine.KVBlocks{}, "more than the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeKV(tt.h, bytes.NewReader(tt.body), 1<<16)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("decodeKV = %v, want an error holding %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeKV = %v, want no error", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decodeKV (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzDecodeKV(f *testing.F) {
	f.Add("2", "3", []byte("0123456789abcdef0123456789abcdefxyz0123456789abcdef0123456789abcdefuvw"))
	f.Add("1", "1", []byte{})
	f.Add("-1", "9", []byte{1})
	f.Fuzz(func(t *testing.T, blocks, size string, body []byte) {
		kv, err := decodeKV(http.Header{KVBlocksHeader: {blocks}, KVBlockBytesHeader: {size}}, bytes.NewReader(body), 1<<16)
		if err != nil {
			return
		}
		if int64(len(kv.Pages)) != int64(len(kv.Hashes))*kv.BlockBytes || kv.BlockBytes <= 0 {
			t.Errorf("decodeKV(%q, %q) = %d hashes, %d bytes of blocks of %d", blocks, size, len(kv.Hashes), len(kv.Pages), kv.BlockBytes)
		}
		if int64(len(body)) < int64(len(kv.Hashes))*(keys.HashSize+kv.BlockBytes) {
			t.Errorf("decodeKV(%q, %q) read %d blocks from %d bytes", blocks, size, len(kv.Hashes), len(body))
		}
	})
}
