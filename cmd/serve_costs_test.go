package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/engine"
	"github.com/spf13/pflag"
)

func TestCostFlags(t *testing.T) {
	large, _ := engine.ModelCosts("llama-3-70b")
	withPrefill := large
	withPrefill.PrefillTokenMS = 0.5
	tests := []struct {
		args []string
		want engine.Costs
	}{
		{nil, engine.DefaultCosts()},
		{[]string{"--model", "llama-3-70b"}, large},
		{[]string{"--model", "llama-3-70b", "--prefill-ms-per-token", "0.5"}, withPrefill},
		{[]string{"--iteration-ms", "0", "--pool-link-gbps", "100"}, engine.Costs{PrefillTokenMS: 0.02, DecodeTokenMS: 0.05, TransferGBps: 100}},
	}
	for _, tt := range tests {
		var f costFlags
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		f.register(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		got, err := f.costs()
		if err != nil {
			t.Errorf("costs(%q) = %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("costs(%q) (-want +got):\n%s", tt.args, diff)
		}
	}
}

// serve's report names the model and the costs that timed its passes, in
// JSON and in its table.
func TestServeReportsItsCosts(t *testing.T) {
	large, _ := engine.ModelCosts("llama-3-70b")
	large.PrefillTokenMS = 0.5
	args := []string{"serve", "--single-rank", "--synthetic", "conversations=2,turns=2,system=64,user=16,output=2",
		"--model", "llama-3-70b", "--prefill-ms-per-token", "0.5"}
	ios, out, errOut := NewTestIOStreams("")
	if got := run(context.Background(), ios, append(args, "-o", "json")); got != ExitOK {
		t.Fatalf("run(%q) = %d; stderr: %s", args, got, errOut)
	}
	var rep struct {
		Model string       `json:"model"`
		Costs engine.Costs `json:"costs"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if rep.Model != "llama-3-70b" || rep.Costs != large {
		t.Errorf("report: model %q, costs %+v; want llama-3-70b, %+v", rep.Model, rep.Costs, large)
	}
	ios, out, errOut = NewTestIOStreams("")
	if got := run(context.Background(), ios, args); got != ExitOK {
		t.Fatalf("run(%q) = %d; stderr: %s", args, got, errOut)
	}
	if want := "llama-3-70b costs: 15 ms a step, 0.5 ms a prefill token"; !strings.Contains(out.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, out)
	}
}
