package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDisaggParams(t *testing.T) {
	id := int64(42)
	tests := []struct {
		in      string
		want    *DisaggParams
		wantErr string
	}{
		{in: ``}, {in: `null`},
		{in: `{"request_type":"context_only"}`, want: &DisaggParams{RequestType: RequestContextOnly}},
		{in: `{"request_type":"context_and_generation"}`, want: &DisaggParams{RequestType: RequestContextAndGeneration}},
		{in: `{"request_type":"generation_only","ctx_request_id":42,"first_gen_tokens":[7],"ctx_info_endpoint":"http://c:1"}`,
			want: &DisaggParams{RequestType: RequestGenerationOnly, CtxRequestID: &id, FirstGenTokens: []int64{7}, CtxInfoEndpoint: "http://c:1"}},
		{in: `{"request_type":"generation_only","first_gen_tokens":[7]}`, wantErr: "needs ctx_request_id"},
		{in: `{"request_type":"generation_only","ctx_request_id":1}`, wantErr: "first_gen_tokens of one token, got 0"},
		{in: `{"request_type":"prefill"}`, wantErr: `request_type "prefill"`},
		{in: `{}`, wantErr: `request_type ""`},
		{in: `[]`, wantErr: "disaggregated_params: json"},
	}
	for _, tt := range tests {
		got, err := parseDisaggParams(json.RawMessage(tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseDisaggParams(%s) = %v, want an error holding %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseDisaggParams(%s) = %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseDisaggParams(%s) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func FuzzParseDisaggParams(f *testing.F) {
	for _, s := range []string{`null`, `{"request_type":"context_only"}`, `{"request_type":"generation_only","ctx_request_id":1,"first_gen_tokens":[7]}`,
		`{"request_type":"generation_only","ctx_request_id":-1,"first_gen_tokens":[1,2]}`, `{"encoded_opaque_state":"AA=="}`, `[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseDisaggParams(json.RawMessage(s))
		if err != nil || p == nil {
			return
		}
		if p.RequestType == RequestGenerationOnly && (p.CtxRequestID == nil || len(p.FirstGenTokens) != 1) {
			t.Errorf("parseDisaggParams(%s) = %+v, want generation_only refused without ctx_request_id and one token", s, p)
		}
		b, _ := json.Marshal(p)
		again, err := parseDisaggParams(b)
		if err != nil || !cmp.Equal(p, again) {
			t.Errorf("parseDisaggParams(%s) of its own output = %+v, %v, want %+v", b, again, err, p)
		}
	})
}
