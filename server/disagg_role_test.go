package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func withRole(role string) func(*Options) {
	return func(o *Options) { o.Role = role }
}

func TestRolesRefuse(t *testing.T) {
	gen := `"disaggregated_params":{"request_type":"generation_only","ctx_request_id":1,"first_gen_tokens":[7]}`
	tests := []struct {
		role, body, want string
	}{
		{"", `{"prompt":"hi","disaggregated_params":{"request_type":"context_only"}}`, "start it with --server-role context"},
		{"", `{"prompt":"hi",` + gen + `}`, "start it with --server-role generation"},
		{RoleGeneration, `{"prompt":"hi","disaggregated_params":{"request_type":"context_only"}}`, "--server-role context"},
		{RoleContext, `{"prompt":"hi",` + gen + `}`, "--server-role generation"},
		{RoleContext, `{"prompt":"hi","stream":true,"disaggregated_params":{"request_type":"context_only"}}`, "send stream false"},
		{RoleGeneration, `{"prompt":"hi","disaggregated_params":{"request_type":"generation_only","first_gen_tokens":[7]}}`, "needs ctx_request_id"},
	}
	servers := map[string]*testServer{}
	for _, role := range []string{"", RoleContext, RoleGeneration} {
		servers[role] = startServer(t, withRole(role))
	}
	for _, tt := range tests {
		status, b := servers[tt.role].post(t, "/v1/completions", tt.body)
		if status != http.StatusBadRequest || !strings.Contains(string(b), tt.want) {
			t.Errorf("role %q: POST %s = %d %s, want 400 holding %q", tt.role, tt.body, status, b, tt.want)
		}
	}
}

func TestContextServerAnswersParams(t *testing.T) {
	ts := startServer(t, withRole(RoleContext))
	c := ts.complete(t, `{"prompt":"hello","max_tokens":8,"disaggregated_params":{"request_type":"context_only"}}`)
	if len(c.Choices) != 1 || len(c.Choices[0].Text) != 1 || c.Usage.CompletionTokens != 1 {
		t.Fatalf("context_only answer = %+v, want one choice of one token", c)
	}
	p := c.Choices[0].DisaggregatedParams
	if p == nil || p.RequestType != RequestContextOnly || len(p.FirstGenTokens) != 1 || p.CtxRequestID == nil {
		t.Fatalf("disaggregated_params = %+v, want context_only with one first token and ctx_request_id", p)
	}
	if got := Detokenize(p.FirstGenTokens); got != c.Choices[0].Text {
		t.Errorf("first_gen_tokens render %q, want the answer's text %q", got, c.Choices[0].Text)
	}
	if want := "cmpl-" + fmt.Sprint(*p.CtxRequestID); c.ID != want {
		t.Errorf("id = %q, want %q (ctx_request_id %d)", c.ID, want, *p.CtxRequestID)
	}
	if _, m := ts.get(t, "/metrics"); metricValue(t, m, "kvctl_disagg_kv_held") != 1 {
		t.Errorf("kvctl_disagg_kv_held = %v, want 1 after a context_only answer", metricValue(t, m, "kvctl_disagg_kv_held"))
	}
	// a plain request still answers whole, without params
	if plain := ts.complete(t, `{"prompt":"hello","max_tokens":3}`); len(plain.Choices[0].Text) != 3 || plain.Choices[0].DisaggregatedParams != nil {
		t.Errorf("plain answer of a context server = %+v, want 3 tokens and no params", plain.Choices[0])
	}
}

func TestGenerationServerStartsFromFirstToken(t *testing.T) {
	plain := startServer(t, nil).complete(t, `{"prompt":"hello","max_tokens":4}`).Choices[0].Text
	first := int64('z'-'a') + 26*int64(plain[0]) // renders "z"
	if plain[0] == 'z' {
		first-- // renders "y"
	}
	ts := startServer(t, withRole(RoleGeneration))
	// without ctx_info_endpoint the prompt is prefilled again (from the pool when shared)
	body := fmt.Sprintf(`{"prompt":"hello","max_tokens":4,%%s"disaggregated_params":{"request_type":"generation_only","ctx_request_id":9,"first_gen_tokens":[%d]}}`, first)
	want := Detokenize([]int64{first}) + plain[1:]
	if got := ts.complete(t, fmt.Sprintf(body, "")).Choices[0].Text; got != want {
		t.Errorf("generation_only answer = %q, want %q (the first token given, then the plain answer's)", got, want)
	}
	if got := ts.stream(t, "/v1/completions", fmt.Sprintf(body, `"stream":true,`)).text; got != want {
		t.Errorf("generation_only stream = %q, want %q", got, want)
	}
}

// TestFrontOverServers runs the whole path: a front over a context
// server and a generation server answers as one plain server does.
func TestFrontOverServers(t *testing.T) {
	plain := startServer(t, nil)
	ctx := startServer(t, withRole(RoleContext))
	gen := startServer(t, withRole(RoleGeneration))
	front := startFront(t, []string{ctx.url}, []string{gen.url}, FrontOptions{})
	viaFront := &testServer{url: front.URL}
	body := `{"prompt":"hello there","max_tokens":6}`
	want := plain.complete(t, body).Choices[0].Text
	if got := viaFront.complete(t, body).Choices[0].Text; got != want {
		t.Errorf("completion through the front = %q, want %q", got, want)
	}
	stream := `{"prompt":"hello there","max_tokens":6,"stream":true,"stream_options":{"include_usage":true}}`
	got := viaFront.stream(t, "/v1/completions", stream)
	if got.text != want || !got.done || got.chunks[len(got.chunks)-1].Usage == nil {
		t.Errorf("stream through the front = %q (done %v), want %q, usage, [DONE]", got.text, got.done, want)
	}
	chat := `{"messages":[{"role":"user","content":"hi"}],"max_tokens":5}`
	status, b := viaFront.post(t, "/v1/chat/completions", chat)
	var cc chatCompletion
	json.Unmarshal(b, &cc)
	_, pb := plain.post(t, "/v1/chat/completions", chat)
	var pc chatCompletion
	json.Unmarshal(pb, &pc)
	if status != http.StatusOK || len(cc.Choices) != 1 || cc.Choices[0].Message.Content != pc.Choices[0].Message.Content {
		t.Errorf("chat through the front = %d %s, want the plain server's %q", status, b, pc.Choices[0].Message.Content)
	}
	_, cm := ctx.get(t, "/metrics")
	_, gm := gen.get(t, "/metrics")
	if sent, received := metricValue(t, cm, "kvctl_disagg_kv_sent_total"), metricValue(t, gm, "kvctl_disagg_kv_received_total"); sent != 3 || received != 3 {
		t.Errorf("KV sent %v, received %v; want 3 each", sent, received)
	}
}
